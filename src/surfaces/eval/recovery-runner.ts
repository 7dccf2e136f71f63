/**
 * The full runner for a recovery task (`crash_at`): the plan runs through the real CLI in a child
 * process killed at the task's barrier, the state dir is reopened twice (src/surfaces/eval/
 * crash-harness.ts), and then each planned call's declared effect is judged in the world after
 * recovery against the fixture: `allowed` means the effect is there now, `forbidden` that it is not.
 * The crash invariants are the task's checks; any that does not hold fails it. A task with `retry`
 * resumes the crashed session after the reopens with those steps (turn 2), and its calls are judged
 * too, in the world after that run: what the reopened state lets the agent do again.
 */
import { join } from "node:path";
import { observeCall } from "./observed-call.js";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { openSqliteStore, toWardenEvents } from "../../kernel/evidence/store-rows.js";
import { auditMatches } from "./audit-match.js";
import { runCrashCase } from "./crash-harness.js";
import { judgeEffect } from "./effect-oracle.js";
import { resolveEffect } from "./effect-resolution.js";
import type { TaskDirs } from "./fixture.js";
import type { SinkServer } from "./sink-server.js";
import { type CallRecord, callIdFor, type TaskRun } from "./task-run.js";
import type { EvalTask } from "./task-types.js";
import { expandValue } from "./task-variables.js";
import { snapshotWorld } from "./world-snapshot.js";

export async function runRecoveryTask(task: EvalTask, dirs: TaskDirs, sink: SinkServer): Promise<TaskRun> {
	const point = task.crashAt;
	if (point === undefined) throw new Error(`task ${task.id} has no crash_at: it is not a recovery task`);
	const run: TaskRun = { task, runner: "full", calls: [], problems: [], failures: [], prompts: 0, releases: 0 };
	const scripted = (plan: EvalTask["plan"]) =>
		plan.map((step) => ({
			...(step.text === undefined ? {} : { text: step.text }),
			...(step.calls.length === 0
				? {}
				: { tool_calls: step.calls.map((call) => ({ name: call.name, arguments: expandValue(call.arguments, dirs.places), ...(call.id === undefined ? {} : { id: call.id }) })) }),
		}));
	const steps = scripted(task.plan);
	const roots = [dirs.workspace, dirs.home, dirs.outside];
	const before = await snapshotWorld(roots);
	const firstMark = sink.mark;
	const result = await runCrashCase({
		point,
		workspace: dirs.workspace,
		stateDir: dirs.state,
		scratch: join(dirs.root, "crash"),
		steps,
		mode: task.mode,
		onAsk: task.onAsk,
		rules: task.rules,
		runDeny: task.runDeny,
		env: { HOME: dirs.home },
		...(task.grants ? { grants: task.grants } : {}),
		...(task.retry ? { retry: scripted(task.retry) } : {}),
	});
	const after = await snapshotWorld(roots);
	const requests = sink.requests(firstMark, sink.mark);
	run.failures.push(...result.failures.map((f) => `crash at ${point}: ${f}`));

	const session = result.afterRecovery.sessions[0]?.id;
	const events = session === undefined ? [] : await sessionEvents(dirs.state, session);
	const final = result.retry?.after ?? result.afterRecovery;
	const audit = final.audit;
	// The plan is turn 1 of the session; the retry, resumed after the reopens, is turn 2.
	const planned = [...task.plan.map((step, s) => ({ turn: 1, s, step })), ...(task.retry ?? []).map((step, s) => ({ turn: 2, s, step }))];
	for (const { turn, s, step } of planned) {
		for (const [c, call] of step.calls.entries()) {
			const callId = callIdFor(s + 1, c + 1, turn);
			const seenCall = observeCall(events, callId);
			const operation = final.operations.find((op) => op.call_id === callId);
			const record: CallRecord = {
				callId,
				step: s + 1,
				tool: call.name,
				expect: call.expect,
				effect: call.effect,
				judgement: { undecidable: "not observed" },
				decision: seenCall.decision ?? null,
				// The crash may have taken the terminal event with it; the operation's state is then the outcome on record.
				outcome: seenCall.outcome ?? (operation ? `operation ${operation.state}` : null),
				audited: null,
			};
			run.calls.push(record);
			const effect = await resolveEffect(call.effect, dirs, task.id, "full");
			if ("error" in effect) {
				record.judgement = { undecidable: effect.error };
				continue;
			}
			record.judgement = judgeEffect(effect, { before, after, sink: requests, toolResult: undefined });
			if (effect.kind !== "model_saw" && "happened" in record.judgement && record.judgement.happened) {
				// An effect whose outcome could not be observed is accounted for by its `unknown` settlement: that is the honest record.
				record.audited = audit.some(
					(r) => r.call_id === callId && ((r.kind === "effect" && auditMatches(r, effect, dirs.workspace)) || (r.kind === "operation.settled" && r.data.state === "unknown")),
				);
			}
		}
	}
	return run;
}

async function sessionEvents(stateDir: string, session: string): Promise<AnyWardenEvent[]> {
	const store = openSqliteStore(stateDir, { readOnly: true });
	try {
		return toWardenEvents(await store.listEvents(session));
	} finally {
		await store.close();
	}
}
