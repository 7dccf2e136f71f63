/**
 * The task ceiling's check (`ceilingPermits`) through prefix indexes over its `exclude` and
 * `effects` scopes, so a ceiling that lists many scopes costs about what a short one does. The
 * answer is a yes or no over the whole list, so the order scopes are tested in does not show;
 * `ceilingPermits` stays the definition, and a property test holds the two equal.
 *
 * An authority builds one when it is made, as it does its grant index: a ceiling is fixed for the
 * task it bounds (its hash goes with every decision).
 */
import { PatternIndex } from "./pattern-index.js";
import { type AccessRequest, type ResourceKind, type Right, resourceKind } from "./resource.js";
import { parsePattern, patternMatches, type ResourcePattern } from "./resource-pattern.js";
import type { EffectScope, TaskCeiling } from "./task-ceiling.js";

/** Whether any scope of a list covers a request. */
class ScopeSet {
	private readonly byRight = new Map<Right, PatternIndex>();
	private readonly patterns: ResourcePattern[] = [];
	/** Set when a scope does not parse (a ceiling built by hand): then the plain scan, which fails where it always did. */
	private readonly unparsed: readonly EffectScope[] | undefined;

	constructor(scopes: readonly EffectScope[]) {
		try {
			for (const s of scopes) this.patterns.push(parsePattern(s.resource));
		} catch {
			this.unparsed = scopes;
			return;
		}
		for (const [i, s] of scopes.entries()) {
			for (const right of new Set(s.rights)) {
				let index = this.byRight.get(right);
				if (!index) {
					index = new PatternIndex();
					this.byRight.set(right, index);
				}
				index.add(this.patterns[i]!, i);
			}
		}
	}

	covers(request: AccessRequest): boolean {
		if (this.unparsed) return this.unparsed.some((s) => s.rights.includes(request.right) && patternMatches(s.resource, request.resource));
		const index = this.byRight.get(request.right);
		if (!index) return false;
		for (const i of index.candidates(request.resource)) if (patternMatches(this.patterns[i]!, request.resource)) return true;
		return false;
	}
}

export class CeilingIndex {
	private readonly exclude: ScopeSet;
	private readonly effects: ScopeSet | null;
	/** The kinds `effects` names a resource of: llm: and human: are bounded only when named. */
	private readonly named: ReadonlySet<ResourceKind | undefined>;

	constructor(ceiling: TaskCeiling) {
		this.exclude = new ScopeSet(ceiling.manifest.exclude);
		const effects = ceiling.manifest.effects;
		this.effects = effects === null ? null : new ScopeSet(effects);
		this.named = new Set((effects ?? []).map((s) => resourceKind(s.resource)));
	}

	/** The same answer as `ceilingPermits` for this ceiling. */
	permits(request: AccessRequest): boolean {
		if (this.exclude.covers(request)) return false;
		if (this.effects === null) return true;
		const kind = resourceKind(request.resource);
		if ((kind === "llm" || kind === "human") && !this.named.has(kind)) return true;
		return this.effects.covers(request);
	}
}
