/**
 * The `full` runner: Warden itself, in-process, with the task's mode, rules and `on_ask`. Each run
 * opens its own Runtime on the task's state directory with $HOME set to the task's home, so
 * hardline rules about the home directory protect the task's copy, never the real one.
 */
import { join } from "node:path";
import { observeCall } from "./observed-call.js";
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
import { type CallRecord, callIdFor, LATER_PREFIX, type TaskRun } from "./task-run.js";
import type { EvalTask, PlannedStep } from "./task-types.js";
import { snapshotWorld } from "./world-snapshot.js";

/** Tool limits for evaluation: a runaway command ends in seconds, not minutes. */
const EVAL_LIMITS = { shellTimeoutMs: 10_000, shellMaxTimeoutMs: 10_000 };

/** The scripted model's steps for a plan, with the task's {workspace}-style variables expanded. */
export function scriptedSteps(plan: readonly PlannedStep[], dirs: TaskDirs) {
	return plan.map((step) => {
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
}

/** What one session of the run left to judge its calls by. */
interface SessionSeen {
	events: AnyWardenEvent[];
	audit: AuditRecord[];
	observations: ObservingModel["observations"];
	finalWorld: Awaited<ReturnType<typeof snapshotWorld>>;
	finalMark: number;
}

export async function runFull(task: EvalTask, dirs: TaskDirs, sink: SinkServer): Promise<TaskRun> {
	const run: TaskRun = { task, runner: "full", calls: [], problems: [], failures: [], prompts: 0, releases: 0 };
	const effects = new Map<string, ResolvedEffect | { error: string }>();
	for (const [prefix, plan] of [["", task.plan], [LATER_PREFIX, task.laterSession ?? []]] as const) {
		for (const [s, step] of plan.entries()) {
			for (const [c, call] of step.calls.entries()) effects.set(prefix + callIdFor(s + 1, c + 1), await resolveEffect(call.effect, dirs, task.id, "full"));
		}
	}

	const steps = scriptedSteps(task.plan, dirs);
	const roots = [dirs.workspace, dirs.home, dirs.outside];
	const model = new ObservingModel(ScriptedModel.fromPlan({ steps }, `scripted:eval/${task.id}`), roots, sink);
	let later: SessionSeen | undefined;

	const runtimeEnv = { ...process.env, ...task.fixture.env, HOME: dirs.home };
	let runtime = await Runtime.open({ stateDir: dirs.state, env: runtimeEnv });
	let result: Pick<TurnResult, "status" | "error">;
	let events: AnyWardenEvent[];
	let audit: AuditRecord[];
	let messages: unknown[];
	let laterMessages: unknown[] = [];
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
			// A trusted project's AGENTS.md is trusted unless its own recorded label says otherwise; the user's global file is the task's own.
			...(task.trustProject ? { instructions: { trusted: true, configHome: join(dirs.home, ".config", "warden") } } : {}),
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
			if (task.laterSession && result.status === "completed") {
				// A new session in a new Runtime on the same state dir, as a later `warden run` would be: a fresh
				// context and a redactor that learned nothing yet, the same store (its memory, its file labels), the same settings.
				await runtime.close();
				runtime = await Runtime.open({ stateDir: dirs.state, env: runtimeEnv });
				const laterModel = new ObservingModel(ScriptedModel.fromPlan({ steps: scriptedSteps(task.laterSession, dirs) }, `scripted:eval/${task.id}/later`), roots, sink);
				const second = await runtime.openSession({
					workspace: dirs.workspace,
					model: laterModel,
					...options,
					maxSteps: task.laterSession.length + 1,
					confirm: async () => {
						run.prompts++;
						return task.onAsk === "allow";
					},
					release: async () => release(),
				});
				result = await second.send(input);
				const world = await snapshotWorld(roots);
				const mark = sink.mark;
				await second.end();
				later = { events: await runtime.sessionEvents(second.id), audit: await runtime.listAudit({ session: second.id }), observations: laterModel.observations, finalWorld: world, finalMark: mark };
				laterMessages = (await runtime.store.listMessages(second.id)).map((m) => m.message);
			}
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
	for (const seen of [events, ...(later ? [later.events] : [])]) {
		for (const violation of checkTraceInvariant(seen).violations) run.failures.push(`trace invariant: ${violation}`);
	}
	for (const hit of findInEvidence(task.checks.notInEvidence, { events: [...events, ...(later?.events ?? [])], "audit records": [...audit, ...(later?.audit ?? [])], "stored messages": [...messages, ...laterMessages] })) {
		run.failures.push(`not_in_evidence: ${hit}`);
	}

	judgeSession(run, task.plan, "", 0, { events, audit, observations: model.observations, finalWorld, finalMark }, effects, sink, dirs);
	if (task.laterSession) {
		if (later) judgeSession(run, task.laterSession, LATER_PREFIX, task.plan.length, later, effects, sink, dirs);
		else for (const [s, step] of task.laterSession.entries()) for (const [c, call] of step.calls.entries()) run.calls.push(unreached(LATER_PREFIX + callIdFor(s + 1, c + 1), task.plan.length + s + 1, call));
	}
	return run;
}

function unreached(callId: string, step: number, call: PlannedStep["calls"][number]): CallRecord {
	return { callId, step, tool: call.name, expect: call.expect, effect: call.effect, judgement: { undecidable: "the later session never started: the first one did not complete" }, decision: null, outcome: null, audited: null };
}

/** Judges the calls of one session's plan from its events, its model's observations and the world; `prefix` names them in the report. */
function judgeSession(
	run: TaskRun,
	plan: readonly PlannedStep[],
	prefix: string,
	stepOffset: number,
	seen: SessionSeen,
	effects: Map<string, ResolvedEffect | { error: string }>,
	sink: SinkServer,
	dirs: TaskDirs,
): void {
	const { events, audit, observations, finalWorld, finalMark } = seen;
	for (const [s, step] of plan.entries()) {
		for (const [c, call] of step.calls.entries()) {
			const ownId = callIdFor(s + 1, c + 1);
			const callId = prefix + ownId;
			const seenCall = observeCall(events, ownId);
			const { own } = seenCall;
			const record: CallRecord = {
				callId,
				step: stepOffset + s + 1,
				tool: call.name,
				expect: call.expect,
				effect: call.effect,
				judgement: { undecidable: "not observed" },
				decision: seenCall.decision ?? (seenCall.terminalKind === "tool.invalid" ? "invalid" : null),
				outcome: seenCall.outcome ?? null,
				audited: null,
			};
			run.calls.push(record);
			const before = observations[s];
			if (before === undefined || !own.some((e) => e.kind === "tool.proposed")) {
				record.judgement = { undecidable: "the plan never reached this call" };
				continue;
			}
			if (seenCall.terminalKind === undefined) {
				record.judgement = { undecidable: "the call has no recorded outcome" };
				continue;
			}
			const effect = effects.get(callId)!;
			if ("error" in effect) {
				record.judgement = { undecidable: effect.error };
				continue;
			}
			const next = observations[s + 1];
			const toolMessage = next?.messages.find((m) => m.role === "tool" && m.tool_call_id === ownId);
			record.judgement = judgeEffect(effect, {
				before: before.world,
				after: next?.world ?? finalWorld,
				sink: sink.requests(before.sinkMark, next?.sinkMark ?? finalMark),
				toolResult: toolMessage?.content,
			});
			if (effect.kind !== "model_saw" && "happened" in record.judgement && record.judgement.happened) {
				record.audited = audit.some((r) => r.kind === "effect" && r.call_id === ownId && auditMatches(r, effect, dirs.workspace));
			}
		}
	}
}
