/**
 * The task ceiling: a host-written manifest bounding what one task run may ever do, whatever
 * capabilities it holds. It creates no authority: admission is capability ∩ ceiling. The manifest
 * is canonicalized (defaults filled, lists sorted and de-duplicated, keys sorted) and hashed, and
 * the hash goes with every decision made under it.
 *
 * `effects` omitted or null restricts nothing; `effects: []` permits no tool effect at all. `llm:`
 * and `human:` are bounded by `effects` only when it names a resource of that kind. `exclude`
 * removes effects whatever `effects` says.
 */
import { createHash } from "node:crypto";
import { checkBudgetLimits } from "../budget/budget-limits.js";
import type { BudgetLimits } from "../budget/budget-types.js";
import { canonicalJson } from "../evidence/audit-chain.js";
import { AuthorityFormatError } from "./authority-errors.js";
import { checkRights } from "./capability.js";
import { type AccessRequest, type Right, resourceKind } from "./resource.js";
import { parsePattern, patternMatches } from "./resource-pattern.js";

export interface EffectScope {
	resource: string;
	rights: Right[];
}

/** What a host writes; everything is optional. */
export interface TaskCeilingSpec {
	effects?: readonly EffectScope[] | null;
	exclude?: readonly EffectScope[];
	/** Where results may flow (remote origins, providers, files); recorded for flow control. */
	sinks?: readonly string[];
	/** Upper bounds on the session's budget: the session gets the smaller of these and its own. */
	budget?: BudgetLimits;
	/** `deny`: no ask is approved in this task, whatever the host's confirm callback would say. */
	approval?: "host" | "deny";
}

/** The canonical manifest: every field present, so equal ceilings hash equal. */
export interface TaskCeilingManifest {
	version: 1;
	effects: EffectScope[] | null;
	exclude: EffectScope[];
	sinks: string[];
	budget: BudgetLimits;
	approval: "host" | "deny";
}

export interface TaskCeiling {
	manifest: TaskCeilingManifest;
	/** sha256 hex of the manifest's canonical JSON. */
	hash: string;
}

const CEILING_KEYS = ["effects", "exclude", "sinks", "budget", "approval"];

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkScopes(value: unknown, field: string): EffectScope[] {
	if (!Array.isArray(value)) throw new AuthorityFormatError(`${field} must be a list of { resource, rights }`);
	const byResource = new Map<string, Set<Right>>();
	value.forEach((item, i) => {
		if (!isObject(item)) throw new AuthorityFormatError(`${field}[${i}] must be a mapping { resource, rights }`);
		const extra = Object.keys(item).find((k) => k !== "resource" && k !== "rights");
		if (extra !== undefined) throw new AuthorityFormatError(`${field}[${i}].${extra}: unknown key (allowed: resource, rights)`);
		if (typeof item.resource !== "string") throw new AuthorityFormatError(`${field}[${i}].resource must be a string such as "fs:src/**"`);
		try {
			parsePattern(item.resource);
		} catch (err) {
			throw new AuthorityFormatError(`${field}[${i}].resource: ${(err as Error).message}`);
		}
		const rights = byResource.get(item.resource) ?? new Set<Right>();
		for (const r of checkRights(item.rights, `${field}[${i}].rights`)) rights.add(r);
		byResource.set(item.resource, rights);
	});
	return [...byResource.entries()]
		.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
		.map(([resource, rights]) => ({ resource, rights: checkRights([...rights], field) }));
}

/** Checks and canonicalizes a host-written ceiling; undefined gives the implicit, unrestricted one. */
export function taskCeiling(spec: unknown = {}, field = "ceiling"): TaskCeiling {
	if (!isObject(spec)) throw new AuthorityFormatError(`${field} must be a mapping`);
	const extra = Object.keys(spec).find((k) => !CEILING_KEYS.includes(k));
	if (extra !== undefined) throw new AuthorityFormatError(`${field}.${extra}: unknown key (allowed: ${CEILING_KEYS.join(", ")})`);
	const effects = spec.effects === undefined || spec.effects === null ? null : checkScopes(spec.effects, `${field}.effects`);
	const exclude = spec.exclude === undefined ? [] : checkScopes(spec.exclude, `${field}.exclude`);
	let sinks: string[] = [];
	if (spec.sinks !== undefined) {
		if (!Array.isArray(spec.sinks) || spec.sinks.some((s) => typeof s !== "string" || s === "")) {
			throw new AuthorityFormatError(`${field}.sinks must be a list of non-empty strings`);
		}
		sinks = [...new Set(spec.sinks as string[])].sort();
	}
	let budget: BudgetLimits;
	try {
		budget = checkBudgetLimits(spec.budget, `${field}.budget`);
	} catch (err) {
		throw new AuthorityFormatError((err as Error).message);
	}
	const approval = spec.approval ?? "host";
	if (approval !== "host" && approval !== "deny") throw new AuthorityFormatError(`${field}.approval must be "host" or "deny"`);
	const manifest: TaskCeilingManifest = { version: 1, effects, exclude, sinks, budget, approval };
	return { manifest, hash: manifestHash(manifest) };
}

export function manifestHash(manifest: TaskCeilingManifest): string {
	return createHash("sha256").update(canonicalJson(manifest)).digest("hex");
}

/** Whether the ceiling leaves room for this access; it grants nothing by itself. */
export function ceilingPermits(ceiling: TaskCeiling, request: AccessRequest): boolean {
	const within = (scope: EffectScope) => scope.rights.includes(request.right) && patternMatches(scope.resource, request.resource);
	if (ceiling.manifest.exclude.some(within)) return false;
	const effects = ceiling.manifest.effects;
	if (effects === null) return true;
	// A ceiling written for files and commands does not silence the model or the host: `effects`
	// bounds llm: and human: only when it names a resource of that kind (`exclude` always does).
	const kind = resourceKind(request.resource);
	if ((kind === "llm" || kind === "human") && !effects.some((scope) => resourceKind(scope.resource) === kind)) return true;
	return effects.some(within);
}

/** The smaller of two sets of budget limits, counter by counter. */
export function tighterBudget(a: BudgetLimits | undefined, b: BudgetLimits): BudgetLimits {
	const out: BudgetLimits = { ...(a ?? {}) };
	for (const [counter, limit] of Object.entries(b) as [keyof BudgetLimits, number][]) {
		const own = out[counter];
		out[counter] = own === undefined ? limit : Math.min(own, limit);
	}
	return out;
}
