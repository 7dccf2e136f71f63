/**
 * The decision for one validated tool call, as the turn loop makes it and `warden policy check`
 * explains it: the permission engine on the call's facts, with a path decided both as written
 * and as its real target.
 */
import type { DecisionResult, PolicyContext, RuleSubject, ToolFacts } from "../kernel/admission/types.js";
import { withRepositoryConfig } from "../kernel/protected/derived-registry.js";
import { resolveWorkspacePath } from "../kernel/workspace-paths.js";
import type { ToolDefinition } from "../tools/tool.js";

/** The tool-level decision (Algorithm 2); the permission engine implements it. */
export interface Decider {
	decide(tool: ToolFacts | undefined, args: unknown, ctx: PolicyContext): DecisionResult;
}

const SEVERITY = { allow: 0, ask: 1, deny: 2 } as const;

export function toolFacts(tool: ToolDefinition, args: Record<string, unknown>): ToolFacts {
	const facts: ToolFacts = { name: tool.name, readOnly: tool.readOnly, requiresConfirmation: tool.requiresConfirmation };
	const subject = tool.ruleSubject(args);
	if (subject) facts.subject = subject;
	return facts;
}

/** `args` must already have passed the tool's schema. */
export function decideToolCall(decider: Decider, policy: PolicyContext, tool: ToolDefinition, args: Record<string, unknown>): Promise<DecisionResult> {
	return decidePaths(decider, policy, toolFacts(tool, args), args);
}

/**
 * The policy with its real-path lookups remembered for this one decision: the path as written and
 * as its real target are decided one after the other, each checking the same target and the same
 * home directory against the hardline rules. One decision is one moment; the primitive resolves
 * the target again when it acts.
 */
function withCallResolution(policy: PolicyContext): PolicyContext {
	// What the repositories' configs name (core.hooksPath, include.path, …), as on disk now: read here, so the engine reads no file.
	const protectedPaths = withRepositoryConfig(policy.protectedPaths, policy.workspace, policy.home);
	const resolve = policy.resolvePath;
	if (!resolve) return { ...policy, protectedPaths };
	const seen = new Map<string, string | undefined>();
	return {
		...policy,
		protectedPaths,
		resolvePath: (absolute) => {
			if (seen.has(absolute)) return seen.get(absolute);
			const real = resolve(absolute);
			seen.set(absolute, real);
			return real;
		},
	};
}

function firstLine(err: unknown): string {
	const text = err instanceof Error ? err.message : String(err);
	const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
	return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * A path is decided both as written and as its real target, and the stricter answer stands: a
 * symlink inside the workspace can then neither carry a write past a rule written for the
 * directory it points to, nor hide behind a name a rule allows. A path that does not resolve
 * inside the workspace is decided as written; the primitive refuses it anyway.
 */
async function decidePaths(decider: Decider, given: PolicyContext, facts: ToolFacts, args: unknown): Promise<DecisionResult> {
	const policy = withCallResolution(given);
	const decide = (f: ToolFacts): DecisionResult => {
		try {
			return decider.decide(f, args, policy);
		} catch (err) {
			// An engine that cannot decide must not let the call through.
			return { decision: "deny", layer: "malformed", reason: `policy could not decide: ${firstLine(err)}` };
		}
	};
	const asWritten = decide(facts);
	const subject = facts.subject;
	if (subject?.kind !== "path" || typeof subject.value !== "string") return asWritten;
	let real: RuleSubject;
	try {
		real = { kind: "path", value: (await resolveWorkspacePath({ given: policy.workspace, real: policy.workspace }, subject.value)).rel };
	} catch {
		return asWritten;
	}
	const asReal = decide({ ...facts, subject: real });
	if (SEVERITY[asReal.decision] >= SEVERITY[asWritten.decision]) {
		return asReal.decision === asWritten.decision ? asWritten : { ...asReal, reason: `${asReal.reason} (real path ${real.value})` };
	}
	return asWritten;
}
