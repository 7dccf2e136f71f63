/**
 * The protected-path layer of the decision. A write-class call whose path is protected (on the
 * path as written or on its real target), or a shell command that changes git's executable
 * config, is never auto-allowed: no mode rule and no broad host rule lets it through, full-access
 * included. It asks, with the registry's reason, so the approval prompt shows why; a denial from
 * any earlier layer or a host deny rule still denies; only a host allow rule that names this exact
 * path (or this exact command) allows it without a human. In automation (nobody to ask) it is
 * therefore denied unless such a rule exists.
 *
 * The kernel's fs primitives check the registry again at the write itself, against the call's
 * clearance (the `clears` paths below, handed on only when the call was approved or exactly allowed).
 */
import { posix } from "node:path";
import { defaultProtectedPaths, type ProtectedPaths } from "../protected/protected-paths.js";
import type { GitExecConfigHit } from "./git-exec-config.js";
import { ruleMatches, type RuleTarget } from "./rules.js";
import type { Decision, DecisionLayer, PermissionRule, PolicyContext, ProtectedTarget, ToolFacts } from "./types.js";
import { canonicalPath } from "./workspace-path.js";

export interface DecidedStep {
	decision: Decision;
	layer: DecisionLayer;
	reason: string;
	rule?: string;
}

export const PROTECTED_GIT_CONFIG_SOURCE = "default (git's executable config keys)";

let defaults: ProtectedPaths | undefined;

function registryOf(ctx: PolicyContext): ProtectedPaths {
	if (ctx.protectedPaths) return ctx.protectedPaths;
	defaults ??= defaultProtectedPaths();
	return defaults;
}

/** Any glob or brace character: a rule with one names a set of paths, not one path. */
const GLOB_CHARS = /[*?[\]{}()!+@]/;

/**
 * The protected path a write to `value` would touch, as written or as its real target (the
 * nearest existing ancestor resolved, the rest appended), with both as the paths an approval clears.
 */
export function protectedTargetOf(value: string, ctx: PolicyContext): ProtectedTarget | undefined {
	const written = canonicalPath(value, ctx.workspace, ctx.home);
	const candidates = [written.absolute];
	const real = realTarget(written.absolute, ctx);
	if (real !== undefined && real !== written.absolute) candidates.push(real);
	const rels = candidates.map((abs) => canonicalPath(abs, ctx.workspace, ctx.home)).flatMap((p) => (p.inside && p.relative !== undefined ? [p.relative] : []));
	const registry = registryOf(ctx);
	for (const rel of rels) {
		const hit = registry.match(rel);
		if (hit) return { path: hit.path, pattern: hit.rule.pattern, reason: hit.rule.reason, source: hit.rule.source, clears: [...new Set(rels)] };
	}
	return undefined;
}

/** What `abs` really names, though it may not exist yet: its nearest existing ancestor's real path, the rest appended. */
function realTarget(abs: string, ctx: PolicyContext): string | undefined {
	if (!ctx.resolvePath) return undefined;
	let dir = abs;
	const rest: string[] = [];
	for (;;) {
		const real = ctx.resolvePath(dir);
		if (real !== undefined) return rest.length === 0 ? real : posix.join(real, ...rest.reverse());
		const parent = posix.dirname(dir);
		if (parent === dir) return undefined;
		rest.push(posix.basename(dir));
		dir = parent;
	}
}

/** A git config change, as the protected target a shell sub-command writes. */
export function gitConfigTarget(hit: GitExecConfigHit): ProtectedTarget {
	return { path: hit.key, pattern: hit.pattern, reason: hit.reason, source: PROTECTED_GIT_CONFIG_SOURCE, clears: [] };
}

/**
 * A host allow rule for exactly this tool whose pattern names exactly the protected path: no glob,
 * no tool glob. Through a symlink that is the real target, so a rule naming only the innocent-looking
 * link does not clear the hook behind it.
 */
function exactPathRule(tool: ToolFacts, target: ProtectedTarget, ctx: PolicyContext): PermissionRule | undefined {
	return ctx.hostRules.find((r) => {
		if (r.outcome !== "allow" || r.tool !== tool.name || r.pattern === undefined || GLOB_CHARS.test(r.pattern)) return false;
		const named = canonicalPath(r.pattern, ctx.workspace, ctx.home);
		return named.inside && named.relative === target.path;
	});
}

/** A host allow rule for exactly this command: no `*`, matched exactly. */
function exactCommandRule(tool: ToolFacts, target: RuleTarget, ctx: PolicyContext): PermissionRule | undefined {
	const scope = { workspace: ctx.workspace, home: ctx.home };
	return ctx.hostRules.find(
		(r) => r.outcome === "allow" && r.tool === tool.name && r.pattern !== undefined && !r.pattern.includes("*") && ruleMatches(r, tool.name, target, scope, "exact"),
	);
}

/**
 * The protected layer over what the rest of the chain decided. A denial stands; a host ask rule
 * still asks; otherwise the call asks with the protected reason, unless a host rule names it exactly.
 */
export function guardProtected(found: DecidedStep, target: ProtectedTarget, tool: ToolFacts, ruleTarget: RuleTarget | undefined, ctx: PolicyContext, display: string): DecidedStep {
	if (found.decision === "deny") return found;
	const hostAsk = found.decision === "ask" && found.layer === "host-rule";
	const exact = hostAsk ? undefined : ruleTarget?.kind === "command" ? exactCommandRule(tool, ruleTarget, ctx) : exactPathRule(tool, target, ctx);
	const what = ruleTarget?.kind === "command" ? `git config key ${target.path}` : `protected path ${target.path}`;
	if (exact) {
		return { decision: "allow", layer: "host-rule", reason: `host rule ${exact.text} (allow, ${exact.source}) names ${display} exactly, so the ${what} may be written (${target.reason})`, rule: exact.text };
	}
	const rule = ruleTarget?.kind === "command" ? `protected:git-config ${target.pattern}` : `protected:${target.pattern}`;
	return {
		decision: "ask",
		layer: "protected-path",
		reason: `${target.reason} (${display}: ${what}, rule ${target.pattern} from ${target.source}); no mode allows it: a human, or a host rule naming it exactly`,
		rule,
	};
}
