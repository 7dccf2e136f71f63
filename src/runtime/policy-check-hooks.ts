/**
 * The PreToolUse hooks in `warden policy check`: the handlers a session would be given (the user's,
 * and the project's only in a trusted workspace, as the config resolves them) that match the tool
 * are run for real with the event a session would send, through the same decision as a session
 * (tool-hooks.ts): a hook may deny or downgrade an allow to ask, never upgrade, and an
 * `updatedInput` is validated and decided again from the start. Nothing is recorded: the check has
 * no session. Each run's verdict is reported, with why it was not applied when it was not.
 */
import type { Decision, DecisionLayer, DecisionResult, PermissionMode } from "../kernel/admission/types.js";
import { checkHookHandlers } from "./hooks/session-hook-setup.js";
import { SessionHooks } from "./hooks/session-hooks.js";
import { decideWithHooks } from "./hooks/tool-hooks.js";
import type { HookHandler, HookOrigin, HookRun, HookVerdict } from "./hooks/hook-types.js";

/** The call id and session id the hooks are told: there is no session. */
export const POLICY_CHECK_CALL = "policy-check";

export interface CheckedHookRun {
	/** Which input it was shown: 0 for the call as given, n after the n-th rewrite. */
	round: number;
	command: string;
	source: string;
	origin: HookOrigin;
	matcher: string;
	verdict: HookVerdict;
	exit_code: number | null;
	timed_out: boolean;
	duration_ms: number;
	reason?: string;
	/** Why its verdict was not applied: it would have upgraded past the policy. */
	refused?: string;
	/** The input it rewrote the call into. */
	updated_input?: Record<string, unknown>;
	additional_context?: boolean;
}

export interface HooksExplanation {
	/** The policy's own decision on the call as given, before any hook. */
	policy: { decision: Decision; layer: DecisionLayer; reason: string };
	/** Every PreToolUse run, in the order they answered for each round. */
	runs: CheckedHookRun[];
	/** Times the hooks rewrote the input (each rewrite decided again). */
	rewrites: number;
}

export interface HookCheckCall {
	handlers: readonly HookHandler[];
	tool: string;
	args: Record<string, unknown>;
	workspace: string;
	mode: PermissionMode;
	env: NodeJS.ProcessEnv;
	decide(args: Record<string, unknown>): Promise<DecisionResult>;
	validate(raw: unknown): { ok: true; value: Record<string, unknown> } | { ok: false; error: string };
}

/** The decision with the hooks (undefined when no PreToolUse hook is configured), the arguments it was reached on, and what each hook said. */
export async function explainHooks(call: HookCheckCall): Promise<{ decision: DecisionResult; args: Record<string, unknown>; hooks: HooksExplanation } | undefined> {
	const handlers = call.handlers.filter((h) => h.event === "PreToolUse");
	if (handlers.length === 0) return undefined;
	checkHookHandlers(handlers);
	const runs: CheckedHookRun[] = [];
	let round = -1;
	const hooks = new SessionHooks({
		handlers,
		session: POLICY_CHECK_CALL,
		cwd: call.workspace,
		env: call.env,
		mode: call.mode,
		observe: (run, refused) => runs.push(checkedRun(run, round, refused)),
	});
	const first = await call.decide(call.args);
	let decidedFirst = false;
	const hooked = await decideWithHooks(
		{
			has: (event) => hooks.has(event),
			fire: (event, input, options) => {
				round++;
				return hooks.fire(event, input, options);
			},
		},
		{
			tool: call.tool,
			callId: POLICY_CHECK_CALL,
			args: call.args,
			// The first round's policy decision is the one already made.
			decide: async (args) => {
				if (!decidedFirst) {
					decidedFirst = true;
					return first;
				}
				return call.decide(args);
			},
			validate: call.validate,
		},
	);
	return { decision: hooked.decision, args: hooked.args, hooks: { policy: { decision: first.decision, layer: first.layer, reason: first.reason }, runs, rewrites: hooked.rewrites } };
}

function checkedRun(run: HookRun, round: number, refused: string | undefined): CheckedHookRun {
	const { handler } = run;
	return {
		round,
		command: handler.command,
		source: handler.source,
		origin: handler.origin,
		matcher: handler.matcher,
		verdict: run.verdict,
		exit_code: run.exitCode,
		timed_out: run.timedOut,
		duration_ms: run.durationMs,
		...(run.reason !== undefined ? { reason: run.reason } : {}),
		...(refused !== undefined ? { refused } : {}),
		...(run.updatedInput !== undefined ? { updated_input: run.updatedInput } : {}),
		...(run.additionalContext !== undefined ? { additional_context: true } : {}),
	};
}
