/**
 * The `full` runner: Warden itself, in-process, with the task's mode, rules and `on_ask`. Each run
 * opens its own Runtime on the task's state directory with $HOME set to the task's home, so
 * hardline rules about the home directory protect the task's copy, never the real one.
 */
import type { AuditRecord } from "../../kernel/evidence/audit-types.js";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { checkTraceInvariant } from "../../kernel/evidence/trace-invariant.js";
import { ScriptedModel } from "../../models/scripted.js";
import { Runtime } from "../../runtime/runtime.js";
import type { TurnResult } from "../../runtime/turn-loop.js";
import { runAcpTurn } from "./acp-driver.js";
import { auditMatches } from "./audit-match.js";
import { judgeEffect, type ResolvedEffect } from "./effect-oracle.js";
import { lateAnswerHost } from "./late-answer.js";
import { resolveEffect } from "./effect-resolution.js";
import { findInEvidence } from "./evidence-search.js";
import type { TaskDirs } from "./fixture.js";
import { ObservingModel } from "./observing-model.js";
import { approveTaskMcp, unknownEffectFailures } from "./eval-mcp-runs.js";
import { expandValue } from "./task-variables.js";
import { taskHookHandlers } from "./task-hooks.js";
import type { SinkServer } from "./sink-server.js";
import { type CallRecord, callIdFor, type TaskRun } from "./task-run.js";
import type { EvalTask } from "./task-types.js";
import { snapshotWorld } from "./world-snapshot.js";

/** Tool limits for evaluation: a runaway command ends in seconds, not minutes. */
const EVAL_LIMITS = { shellTimeoutMs: 10_000, shellMaxTimeoutMs: 10_000 };

function callIdOf(event: AnyWardenEvent): string | undefined {
	const payload = event.payload as { call_id?: unknown };
	return typeof payload.call_id === "string" ? payload.call_id : undefined;
}

const TERMINALS: Record<string, string> = {
	"tool.completed": "completed",
	"tool.failed": "failed",
	"tool.denied": "denied",
	"tool.cancelled": "cancelled",
	"tool.invalid": "invalid",
};

export async function runFull(task: EvalTask, dirs: TaskDirs, sink: SinkServer): Promise<TaskRun> {
	const run: TaskRun = { task, runner: "full", calls: [], problems: [], failures: [], prompts: 0, releases: 0 };
	const effects = new Map<string, ResolvedEffect | { error: string }>();
	for (const [s, step] of task.plan.entries()) {
		for (const [c, call] of step.calls.entries()) effects.set(callIdFor(s + 1, c + 1), await resolveEffect(call.effect, dirs, task.id, "full"));
	}

	const steps = task.plan.map((step) => {
		const out: { text?: string; tool_calls?: unknown[] } = {};
		if (step.text !== undefined) out.text = step.text;
		if (step.calls.length > 0) {
			out.tool_calls = step.calls.map((call) => {
				const raw: Record<string, unknown> = { name: call.name, arguments: expandValue(call.arguments, dirs.places) };
				if (call.id !== undefined) raw.id = call.id;
				return raw;
			});
		}
		return out;
	});
	const roots = [dirs.workspace, dirs.home, dirs.outside];
	const model = new ObservingModel(ScriptedModel.fromPlan({ steps }, `scripted:eval/${task.id}`), roots, sink);

	const runtime = await Runtime.open({ stateDir: dirs.state, env: { ...process.env, ...task.fixture.env, HOME: dirs.home } });
	let result: Pick<TurnResult, "status" | "error">;
	let events: AnyWardenEvent[];
	let audit: AuditRecord[];
	let messages: unknown[];
	let finalWorld: Awaited<ReturnType<typeof snapshotWorld>>;
	let finalMark: number;
	try {
		const mcpServers = await approveTaskMcp(task, dirs, runtime);
		const hooks = taskHookHandlers(task.hooks, dirs);
		const options = {
			...(hooks.handlers.length > 0 ? { hooks: hooks.handlers } : {}),
			...(hooks.ignored.length > 0 ? { configNotes: hooks.ignored } : {}),
			...(mcpServers ? { mcpServers } : {}),
			mode: task.mode,
			rules: task.rules,
			runDeny: task.runDeny,
			maxSteps: task.plan.length + 1,
			limits: EVAL_LIMITS,
			budget: task.budget,
			...(task.grants ? { grants: task.grants } : {}),
			...(task.ceiling ? { ceiling: task.ceiling } : {}),
			...(task.flow ? { flow: expandValue(task.flow, dirs.places) } : {}),
		};
		const release = () => {
			run.releases++;
			return task.onRelease === "allow" || (task.onRelease === "once" && run.releases === 1);
		};
		const input = task.description === "" ? `Evaluation task ${task.id}` : task.description;
		let sessionId: string;
		if (task.acp) {
			sessionId = await runAcpTurn(runtime, dirs.workspace, model, options, input, task.acp, {
				asked: () => {
					run.prompts++;
				},
				release,
			});
			finalWorld = await snapshotWorld(roots);
			finalMark = sink.mark;
			events = await runtime.sessionEvents(sessionId);
			const ending = events.findLast((e) => e.kind === "turn.completed")?.payload as { status: TurnResult["status"]; error?: string } | undefined;
			result = ending ?? { status: "error", error: "the ACP turn left no turn.completed event" };
		} else {
			const session = await runtime.openSession({
				workspace: dirs.workspace,
				model,
				...options,
				confirm: async () => {
					run.prompts++;
					return task.onAsk === "allow";
				},
				release: async () => release(),
				...(task.lateAnswer ? lateAnswerHost(runtime, task.lateAnswer, run) : {}),
			});
			result = await session.send(input);
			finalWorld = await snapshotWorld(roots);
			finalMark = sink.mark;
			await session.end();
			sessionId = session.id;
			events = await runtime.sessionEvents(sessionId);
		}
		audit = await runtime.listAudit({ session: sessionId });
		messages = (await runtime.store.listMessages(sessionId)).map((m) => m.message);
		for (const failure of await unknownEffectFailures(task, runtime.store, sessionId)) run.failures.push(failure);
		const verified = await runtime.verifyAudit();
		if (!verified.ok) run.failures.push(`audit chain broken at record ${verified.firstBad.seq}: ${verified.firstBad.reason}`);
	} finally {
		await runtime.close();
	}

	// A task with a budget is written to run out of it: that ending is the one it expects.
	// An ACP task that cancels (cancel_at, or the answer `cancelled`) expects its turn to end cancelled.
	const cancels = task.acp !== undefined && (task.acp.cancelAt !== undefined || task.acp.answer === "cancelled");
	const expectedEnd = result.status === "completed" || (result.status === "budget_exhausted" && Object.keys(task.budget).length > 0) || (cancels && result.status === "cancelled");
	if (!expectedEnd) run.problems.push(`the turn ended as ${result.status}${result.error ? `: ${result.error}` : ""}`);
	const trace = checkTraceInvariant(events);
	for (const violation of trace.violations) run.failures.push(`trace invariant: ${violation}`);
	for (const hit of findInEvidence(task.checks.notInEvidence, { events, "audit records": audit, "stored messages": messages })) {
		run.failures.push(`not_in_evidence: ${hit}`);
	}

	const observations = model.observations;
	for (const [s, step] of task.plan.entries()) {
		for (const [c, call] of step.calls.entries()) {
			const callId = callIdFor(s + 1, c + 1);
			const own = events.filter((e) => callIdOf(e) === callId);
			const decided = own.find((e) => e.kind === "permission.decided");
			const terminal = own.find((e) => TERMINALS[e.kind] !== undefined);
			const record: CallRecord = {
				callId,
				step: s + 1,
				tool: call.name,
				expect: call.expect,
				effect: call.effect,
				judgement: { undecidable: "not observed" },
				decision: decided ? String((decided.payload as { decision: string }).decision) : terminal?.kind === "tool.invalid" ? "invalid" : null,
				outcome: terminal ? TERMINALS[terminal.kind]! : null,
				audited: null,
			};
			run.calls.push(record);
			const before = observations[s];
			if (before === undefined || !own.some((e) => e.kind === "tool.proposed")) {
				record.judgement = { undecidable: "the plan never reached this call" };
				continue;
			}
			if (terminal === undefined) {
				record.judgement = { undecidable: "the call has no recorded outcome" };
				continue;
			}
			const effect = effects.get(callId)!;
			if ("error" in effect) {
				record.judgement = { undecidable: effect.error };
				continue;
			}
			const next = observations[s + 1];
			const toolMessage = next?.messages.find((m) => m.role === "tool" && m.tool_call_id === callId);
			record.judgement = judgeEffect(effect, {
				before: before.world,
				after: next?.world ?? finalWorld,
				sink: sink.requests(before.sinkMark, next?.sinkMark ?? finalMark),
				toolResult: toolMessage?.content,
			});
			if (effect.kind !== "model_saw" && "happened" in record.judgement && record.judgement.happened) {
				record.audited = audit.some((r) => r.kind === "effect" && r.call_id === callId && auditMatches(r, effect, dirs.workspace));
			}
		}
	}
	return run;
}
