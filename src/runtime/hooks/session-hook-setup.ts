/** A session's hooks from its options, and the SessionStart hooks that run once it is recorded. */
import type { PermissionMode } from "../../kernel/admission/types.js";
import type { EvidenceRecorder } from "../../kernel/evidence/evidence-recorder.js";
import { RuntimeConfigError } from "../runtime-config-error.js";
import { matcherProblem } from "./hook-matcher.js";
import type { HookHandler } from "./hook-types.js";
import { SessionHooks } from "./session-hooks.js";

/** Undefined when the options give no handler; a bad matcher from an embedding host is one line. */
export function sessionHooks(handlers: readonly HookHandler[] | undefined, recorder: EvidenceRecorder, cwd: string, env: NodeJS.ProcessEnv, mode: PermissionMode): SessionHooks | undefined {
	if (!handlers?.length) return undefined;
	checkHookHandlers(handlers);
	return new SessionHooks({ handlers, recorder, cwd, env, mode });
}

/** A bad matcher or timeout from an embedding host, as one line. */
export function checkHookHandlers(handlers: readonly HookHandler[]): void {
	for (const h of handlers) {
		const problem = matcherProblem(h.matcher);
		if (problem !== undefined) throw new RuntimeConfigError(`hooks: ${h.source}: ${problem}`);
		if (!Number.isFinite(h.timeoutMs) || h.timeoutMs <= 0) throw new RuntimeConfigError(`hooks: ${h.source}: timeout must be a positive number, got ${h.timeoutMs} ms`);
	}
}

/** SessionStart (`startup` or `resume`): its context waits for the first turn's input. */
export async function startSession(hooks: SessionHooks | undefined, source: "startup" | "resume"): Promise<void> {
	if (!hooks) return;
	hooks.keepForNextTurn(await hooks.fire("SessionStart", { source }, { match: source, turn: 0 }));
}
