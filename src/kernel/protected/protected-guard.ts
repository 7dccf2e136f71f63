/**
 * The protected-path check at the fs primitives: every writer (file tools, edit_file, JIT-tool
 * syscalls, undo, sub-agents) reaches a write or a delete through them, so this is where the
 * registry is enforced whatever decided the call. A write to a protected path happens only when
 * this very call holds a clearance for that exact path: a human approved this call for it, or a
 * host rule named it exactly. An approval of the call for something else clears nothing.
 */
import { defaultProtectedPaths, type ProtectedPathHit, type ProtectedPaths } from "./protected-paths.js";

export type ProtectedRight = "write" | "delete";

/** A write or delete of a protected path that this call was not cleared for; nothing was touched. */
export class ProtectedPathDeniedError extends Error {
	override name = "ProtectedPathDeniedError";

	constructor(
		readonly path: string,
		readonly right: ProtectedRight,
		readonly hit: ProtectedPathHit,
	) {
		super(
			`protected path refused: ${right} ${path}: ${hit.rule.reason} (protected path ${hit.rule.pattern}, ${hit.rule.source}); this call was not cleared for it. ` +
				"Do not try another route to it: only a human approval of a call naming this exact path, or a host rule naming it, lets it through",
		);
	}

	/** What the `protected.denied` audit record holds. */
	toRecord(): Record<string, unknown> {
		return { path: this.path, right: this.right, pattern: this.hit.rule.pattern, source: this.hit.rule.source, reason: this.hit.rule.reason };
	}
}

export interface ProtectedGuardOptions {
	/** The registry in force; the defaults when the host gave none. */
	registry?: ProtectedPaths;
	/** The exact workspace-relative paths this call is cleared for (what the approval or host rule named). */
	clearance?: readonly string[];
}

/** One call's check: kept per call so that its refusals are audited even when the tool swallows them. */
export class ProtectedGuard {
	readonly registry: ProtectedPaths;
	private readonly cleared: ReadonlySet<string>;
	private readonly refused: ProtectedPathDeniedError[] = [];

	constructor(opts: ProtectedGuardOptions = {}) {
		this.registry = opts.registry ?? sharedDefaults();
		this.cleared = new Set((opts.clearance ?? []).map(normalizeRel));
	}

	/** Throws ProtectedPathDeniedError when `rel` (the real, resolved workspace-relative path) is protected and not cleared. */
	check(rel: string, right: ProtectedRight): void {
		const hit = this.registry.match(rel);
		if (hit === undefined || this.cleared.has(normalizeRel(rel))) return;
		const err = new ProtectedPathDeniedError(hit.path, right, hit);
		this.refused.push(err);
		throw err;
	}

	/** Every refusal of this call, in order. */
	get refusals(): readonly ProtectedPathDeniedError[] {
		return this.refused;
	}
}

let defaults: ProtectedPaths | undefined;

/** Compiled once: a kernel without a registry from its host still meets the defaults. */
function sharedDefaults(): ProtectedPaths {
	defaults ??= defaultProtectedPaths();
	return defaults;
}

function normalizeRel(rel: string): string {
	let p = rel.replace(/\\/g, "/").replace(/\/{2,}/g, "/");
	while (p.startsWith("./")) p = p.slice(2);
	return p.replace(/\/+$/, "");
}
