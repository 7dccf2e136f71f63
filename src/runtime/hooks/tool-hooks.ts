/**
 * Hooks inside the one decision pipeline every tool call goes through — built-in, MCP, JIT and
 * sub-agents' calls alike. PreToolUse runs after the policy has decided and can only make the
 * decision stricter: a deny (exit 2, `permissionDecision: deny`, a failure or a timeout) denies, an
 * `ask` over an allow asks; an `allow` over an ask or deny changes nothing and is recorded as
 * refused. An `updatedInput` is the whole new input: it is validated and decided again from the
 * start, hooks included. PostToolUse / PostToolUseFailure see the result and add to it.
 */
import type { DecisionResult } from "../../kernel/admission/types.js";
import type { HookNote } from "./hook-notes.js";
import { hookNotes } from "./hook-notes.js";
import type { HookRun, HookVerdict } from "./hook-types.js";
import type { SessionHooks } from "./session-hooks.js";

/** How many times hooks may rewrite one call's input before the call is refused. */
export const MAX_HOOK_REWRITES = 3;

const SEVERITY = { allow: 0, ask: 1, deny: 2 } as const;

/** The decision each verdict stands for; `none` asks for nothing. */
const VERDICT_DECISION: Record<HookVerdict, keyof typeof SEVERITY | undefined> = {
	none: undefined,
	allow: "allow",
	ask: "ask",
	deny: "deny",
	block: "deny",
	// A PreToolUse hook that could not answer fails closed.
	failed: "deny",
};

export interface PreToolCall {
	tool: string;
	callId: string;
	args: Record<string, unknown>;
	/** The policy's decision for these arguments (the permission engine, paths as written and real). */
	decide(args: Record<string, unknown>): Promise<DecisionResult>;
	/** The tool's schema check, for a rewritten input. */
	validate(raw: unknown): { ok: true; value: Record<string, unknown> } | { ok: false; error: string };
	signal?: AbortSignal;
}

export interface HookedDecision {
	decision: DecisionResult;
	/** The arguments decided last: what runs, if the call is admitted. */
	args: Record<string, unknown>;
	notes: HookNote[];
	rewrites: number;
}

/** Why a verdict over `policy` is not applied, or undefined when it is (or asks for nothing). */
export function upgradeRefusal(verdict: HookVerdict, policy: DecisionResult): string | undefined {
	const wanted = VERDICT_DECISION[verdict];
	if (wanted === undefined || SEVERITY[wanted] >= SEVERITY[policy.decision]) return undefined;
	return `a hook cannot upgrade past the policy: it said ${wanted}, the policy decided ${policy.decision} (${policy.reason})`;
}

function who(run: HookRun): string {
	return `PreToolUse hook \`${run.handler.command}\``;
}

/** The policy's decision made stricter by the runs' verdicts: the most severe one stands. */
export function applyVerdicts(policy: DecisionResult, runs: readonly HookRun[]): DecisionResult {
	let decision = policy;
	for (const run of runs) {
		const wanted = VERDICT_DECISION[run.verdict];
		if (wanted === undefined || SEVERITY[wanted] <= SEVERITY[decision.decision]) continue;
		const why = run.reason ?? (wanted === "deny" ? "denied" : "asks for confirmation");
		const said = run.verdict === "failed" ? `failed, so the call is denied: ${why}` : wanted === "deny" ? `denied it: ${why}` : `asks for confirmation: ${why}`;
		decision = { ...policy, decision: wanted, layer: "hook", reason: `${who(run)} (${run.handler.source}) ${said}` };
	}
	return decision;
}

/** What the decision needs of a session's hooks (`warden policy check` passes its own, unrecorded). */
export type PreToolHooks = Pick<SessionHooks, "has" | "fire">;

/** The decision for one validated call with its PreToolUse hooks; without any, the policy's alone. */
export async function decideWithHooks(hooks: PreToolHooks | undefined, call: PreToolCall): Promise<HookedDecision> {
	let args = call.args;
	const notes: HookNote[] = [];
	for (let rewrites = 0; ; rewrites++) {
		const policy = await call.decide(args);
		if (!hooks?.has("PreToolUse")) return { decision: policy, args, notes, rewrites };
		const runs = await hooks.fire("PreToolUse", { tool_name: call.tool, tool_input: args, tool_use_id: call.callId }, { match: call.tool, callId: call.callId, judge: (run) => upgradeRefusal(run.verdict, policy), ...(call.signal ? { signal: call.signal } : {}) });
		const decision = applyVerdicts(policy, runs);
		notes.push(...hookNotes(runs));
		const rewrite = runs.find((r) => r.updatedInput !== undefined && VERDICT_DECISION[r.verdict] !== "deny");
		if (decision.decision === "deny" || rewrite === undefined || sameInput(rewrite.updatedInput!, args)) return { decision, args, notes, rewrites };
		if (rewrites >= MAX_HOOK_REWRITES) {
			return { decision: { decision: "deny", layer: "hook", reason: `PreToolUse hooks rewrote the input more than ${MAX_HOOK_REWRITES} times` }, args, notes, rewrites };
		}
		const checked = call.validate(rewrite.updatedInput);
		if (!checked.ok) {
			return { decision: { decision: "deny", layer: "hook", reason: `${who(rewrite)} (${rewrite.handler.source}) rewrote the input into an invalid call: ${checked.error}` }, args, notes, rewrites };
		}
		// Decided again from the start: the policy on the new input, then the hooks on it.
		args = checked.value;
	}
}

function sameInput(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
	return JSON.stringify(a) === JSON.stringify(b);
}

/** PostToolUse (the call completed) or PostToolUseFailure (it failed): the notes they leave beside the result. */
export async function afterToolCall(
	hooks: SessionHooks | undefined,
	call: { tool: string; callId: string; args: Record<string, unknown>; output: string; error?: string; signal?: AbortSignal },
): Promise<HookNote[]> {
	if (!hooks) return [];
	const input = { tool_name: call.tool, tool_input: call.args, tool_use_id: call.callId };
	const options = { match: call.tool, callId: call.callId, ...(call.signal ? { signal: call.signal } : {}) };
	const runs =
		call.error === undefined
			? await hooks.fire("PostToolUse", { ...input, tool_response: call.output }, options)
			: await hooks.fire("PostToolUseFailure", { ...input, error: call.error, tool_response: call.output }, options);
	// The call already ran: a blocking PostToolUse hook can only tell the model why.
	return hookNotes(runs, true);
}
