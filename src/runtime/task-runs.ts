/**
 * Durable task runs: one session's work driven by commands (start, follow-up, continue, cancel),
 * each keyed by the client's id and recorded before it runs, so a retried command gets the stored
 * result back and never runs twice. A run whose session holds an effect nobody can account for, or
 * whose command a dying process left unfinished, needs the host's attention before it goes on.
 */
import type { AnyWardenEvent, TurnStatus } from "../kernel/evidence/event-types.js";
import type { RunCommandKind, RunCommandRow, TaskRunRow, TaskRunState } from "../store/store.js";
import type { OpenSessionOptions, ResumeSessionOptions, Runtime } from "./runtime.js";
import type { Session } from "./session.js";
import { describeAttention, runAttention, type UnknownEffect } from "./task-run-attention.js";

export type { UnknownEffect };

/** What a finished command stored; a retry returns it as it was. */
export interface RunCommandResult {
	run: string;
	command: string;
	kind: RunCommandKind | "resolve";
	session: string;
	/** The run's state after the command. */
	state: TaskRunState;
	/** The state the command's own work left (the turn's), before any attention: where `resolve` returns to. */
	outcome: Exclude<TaskRunState, "needs_attention">;
	status?: TurnStatus;
	turn?: number;
	/** The turn's answer and error as the evidence holds them (redacted). */
	text?: string;
	error?: string;
	attention?: string;
}

export interface CommandOutcome {
	result: RunCommandResult;
	/** True when the command id was seen before: nothing ran this time. */
	replayed: boolean;
	/** Set when the earlier attempt was accepted but never finished: it is not run again. */
	interrupted?: string;
}

export interface TaskRunView {
	run: TaskRunRow;
	commands: RunCommandRow[];
	unknownEffects: UnknownEffect[];
	interrupted: RunCommandRow[];
}

/** A refused command, one line. */
export class TaskRunError extends Error {
	override name = "TaskRunError";
}

export class TaskRuns {
	/** Runs with a command in progress in this process, and that command's id. */
	private readonly active = new Map<string, { command: string; session: Session | undefined }>();

	constructor(private readonly runtime: Runtime) {}

	/** Creates the run and its session and runs the task; the run id is the start command's id. */
	async start(id: string, task: string, options: OpenSessionOptions): Promise<CommandOutcome> {
		checkId(id, "run id");
		const store = this.runtime.store;
		const earlier = await this.replay(id, id);
		if (earlier) return earlier;
		if (await store.getTaskRun(id)) throw new TaskRunError(`run ${id} exists but its start was never recorded; start another run`);
		if (this.active.has(id)) throw new TaskRunError(`run ${id} is already starting in this process`);
		const capture = turnCapture(options.onEvent);
		this.active.set(id, { command: id, session: undefined });
		try {
			const session = await this.runtime.openSession({ ...options, onEvent: capture.onEvent });
			const now = new Date().toISOString();
			await store.createTaskRun({ id, session: session.id, state: "running", created_at: now, updated_at: now });
			await store.recordRunCommand({ run: id, command_id: id, kind: "start", input: task, created_at: now });
			return { result: await this.runTurn(id, id, "start", session, task, capture), replayed: false };
		} finally {
			this.active.delete(id);
		}
	}

	/** Another turn of the run's conversation. */
	followUp(runId: string, commandId: string, text: string, options: ResumeSessionOptions = {}): Promise<CommandOutcome> {
		return this.resumeWith(runId, commandId, "follow-up", text, options);
	}

	/** Goes on after an interruption: resumes the session with "continue". */
	continue(runId: string, commandId: string, options: ResumeSessionOptions = {}): Promise<CommandOutcome> {
		return this.resumeWith(runId, commandId, "continue", "continue", options);
	}

	/** Cancels the run: its turn in this process, if one runs, and any further follow-up. */
	async cancel(runId: string, commandId: string): Promise<CommandOutcome> {
		checkId(commandId, "command id");
		const run = await this.getRun(runId);
		const earlier = await this.replay(runId, commandId);
		if (earlier) return earlier;
		const store = this.runtime.store;
		await store.recordRunCommand({ run: runId, command_id: commandId, kind: "cancel", created_at: new Date().toISOString() });
		await this.active.get(runId)?.session?.cancel("run cancelled by the host");
		const result = await this.settle(run, commandId, "cancel", { outcome: "cancelled" });
		return { result, replayed: false };
	}

	/**
	 * The host's acknowledgement of what the run needed attention for (recorded in the audit, naming
	 * each unknown effect and interrupted command); the run returns to the state its last finished
	 * command left. A retried acknowledgement returns the first one's result. `resolvedBy` names the
	 * surface that resolved it (the CLI's host, the console).
	 */
	async resolve(runId: string, commandId: string, resolvedBy = "host"): Promise<CommandOutcome> {
		checkId(commandId, "command id");
		const run = await this.getRun(runId);
		const store = this.runtime.store;
		const audit = await store.listAudit({ session: run.session });
		const earlier = audit.find((r) => r.kind === "run.resolved" && r.data.run === runId && r.data.command_id === commandId);
		if (earlier) return { result: earlier.data.result as RunCommandResult, replayed: true };
		const attention = await runAttention(store, run, this.runningCommands());
		if (attention.unknownEffects.length === 0 && attention.interrupted.length === 0) throw new TaskRunError(`run ${runId} needs no attention`);
		const outcome = await this.lastOutcome(runId);
		const result: RunCommandResult = { run: runId, command: commandId, kind: "resolve", session: run.session, state: outcome, outcome };
		await store.appendAudit({
			session: run.session,
			turn: 0,
			kind: "run.resolved",
			data: {
				run: runId,
				command_id: commandId,
				operations: attention.unknownEffects.map((e) => e.operation),
				commands: attention.interrupted.map((c) => c.command_id),
				by: resolvedBy,
				resolved_by: resolvedBy,
				result: { ...result },
			},
		});
		await store.updateTaskRun(runId, { state: outcome, attention: null, updated_at: new Date().toISOString() });
		return { result, replayed: false };
	}

	/** The run with its commands and what it needs attention for; the stored state is brought up to date. */
	async show(runId: string): Promise<TaskRunView> {
		const run = await this.refresh(await this.getRun(runId));
		const attention = await runAttention(this.runtime.store, run, this.runningCommands());
		return { run, commands: await this.runtime.store.listRunCommands(runId), unknownEffects: attention.unknownEffects, interrupted: attention.interrupted };
	}

	/** Newest first, each brought up to date. */
	async list(limit?: number): Promise<TaskRunRow[]> {
		const runs = await this.runtime.store.listTaskRuns(limit);
		const out: TaskRunRow[] = [];
		for (const run of runs) out.push(await this.refresh(run));
		return out;
	}

	private async resumeWith(runId: string, commandId: string, kind: "follow-up" | "continue", input: string, options: ResumeSessionOptions): Promise<CommandOutcome> {
		checkId(commandId, "command id");
		const earlier = await this.replay(runId, commandId);
		if (earlier) return earlier;
		const run = await this.refresh(await this.getRun(runId));
		if (this.active.has(runId)) throw new TaskRunError(`run ${runId} is running a command; wait for it or cancel it`);
		if (run.state === "needs_attention") throw new TaskRunError(`run ${runId} needs attention (${run.attention ?? "see warden runs show"}): resolve it first`);
		if (run.state === "cancelled") throw new TaskRunError(`run ${runId} was cancelled`);
		const store = this.runtime.store;
		const capture = turnCapture(options.onEvent);
		this.active.set(runId, { command: commandId, session: undefined });
		try {
			await store.recordRunCommand({ run: runId, command_id: commandId, kind, input, created_at: new Date().toISOString() });
			let session: Session;
			try {
				session = await this.runtime.resumeSession(run.session, { ...options, onEvent: capture.onEvent });
			} catch (err) {
				// It never ran: the command is finished with why, so a retry says the same.
				const error = err instanceof Error ? err.message : String(err);
				return { result: await this.settle(run, commandId, kind, { outcome: "failed", error }), replayed: false };
			}
			return { result: await this.runTurn(runId, commandId, kind, session, input, capture), replayed: false };
		} finally {
			this.active.delete(runId);
		}
	}

	/** Runs one turn of the run's session, ends the session and stores the command's result. */
	private async runTurn(runId: string, commandId: string, kind: RunCommandKind, session: Session, input: string, capture: TurnCapture): Promise<RunCommandResult> {
		const entry = this.active.get(runId);
		if (entry) entry.session = session;
		let status: TurnStatus = "error";
		let turn: number | undefined;
		let error: string | undefined;
		try {
			const result = await session.send(input);
			status = result.status;
			turn = result.turn;
		} catch (err) {
			error = err instanceof Error ? err.message : String(err);
		}
		await session.end(status === "completed" ? "ok" : "error");
		const run = await this.getRun(runId);
		const done = capture.last();
		return this.settle(run, commandId, kind, {
			outcome: status === "completed" ? "completed" : status === "cancelled" ? "cancelled" : "failed",
			status,
			...(turn !== undefined ? { turn } : {}),
			...(done?.text ? { text: done.text } : {}),
			...(error ?? done?.error ? { error: error ?? done?.error } : {}),
		});
	}

	/** Stores the command's result and the run's state after it: attention, if anything is open, else the outcome. */
	private async settle(run: TaskRunRow, commandId: string, kind: RunCommandKind, done: Omit<RunCommandResult, "run" | "command" | "kind" | "session" | "state">): Promise<RunCommandResult> {
		const store = this.runtime.store;
		// This command is finished below; it is not an interrupted one.
		const running = new Set([...this.runningCommands(), commandId]);
		const attention = describeAttention(await runAttention(store, run, running));
		const result: RunCommandResult = {
			run: run.id,
			command: commandId,
			kind,
			session: run.session,
			...done,
			state: attention ? "needs_attention" : done.outcome,
			...(attention ? { attention } : {}),
		};
		await store.finishRunCommand(run.id, commandId, { ...result });
		await store.updateTaskRun(run.id, { state: result.state, attention: attention ?? null, updated_at: new Date().toISOString() });
		return result;
	}

	/** The stored result of a command seen before; an accepted one that never finished is reported, not run. */
	private async replay(runId: string, commandId: string): Promise<CommandOutcome | undefined> {
		const store = this.runtime.store;
		const command = (await store.listRunCommands(runId)).find((c) => c.command_id === commandId);
		if (!command) return undefined;
		if (command.state === "done") return { result: command.result as unknown as RunCommandResult, replayed: true };
		if (this.active.get(runId)?.command === commandId) throw new TaskRunError(`command ${commandId} of run ${runId} is running now`);
		const run = await this.refresh(await this.getRun(runId));
		const interrupted = `command ${commandId} of run ${runId} was accepted but never finished (the process stopped while it ran); it is not run again`;
		const result: RunCommandResult = {
			run: runId,
			command: commandId,
			kind: command.kind,
			session: run.session,
			state: run.state,
			outcome: "failed",
			...(run.attention ? { attention: run.attention } : {}),
		};
		return { result, replayed: true, interrupted };
	}

	/** Brings the stored state up to date with what is open now: unknown effects, interrupted commands. */
	private async refresh(run: TaskRunRow): Promise<TaskRunRow> {
		if (this.active.has(run.id)) return run;
		const attention = describeAttention(await runAttention(this.runtime.store, run, this.runningCommands()));
		if (attention) {
			if (run.state === "needs_attention" && run.attention === attention) return run;
			const updated_at = new Date().toISOString();
			await this.runtime.store.updateTaskRun(run.id, { state: "needs_attention", attention, updated_at });
			return { ...run, state: "needs_attention", attention, updated_at };
		}
		if (run.state === "needs_attention" || run.state === "running") {
			// Nothing is open any more (or nothing runs it): back to what its last finished command left.
			const state = await this.lastOutcome(run.id);
			const updated_at = new Date().toISOString();
			await this.runtime.store.updateTaskRun(run.id, { state, attention: null, updated_at });
			const { attention: _dropped, ...rest } = run;
			return { ...rest, state, updated_at };
		}
		return run;
	}

	/** The outcome of the run's last finished command; a run none finished ended without a result: failed. */
	private async lastOutcome(runId: string): Promise<Exclude<TaskRunState, "needs_attention">> {
		const commands = await this.runtime.store.listRunCommands(runId);
		for (let i = commands.length - 1; i >= 0; i--) {
			const outcome = (commands[i]?.result as Partial<RunCommandResult> | undefined)?.outcome;
			if (commands[i]?.state === "done" && outcome) return outcome;
		}
		return "failed";
	}

	private async getRun(runId: string): Promise<TaskRunRow> {
		const run = await this.runtime.store.getTaskRun(runId);
		if (!run) throw new TaskRunError(`unknown run ${runId}`);
		return run;
	}

	private runningCommands(): Set<string> {
		return new Set([...this.active.values()].map((a) => a.command));
	}
}

interface TurnCapture {
	onEvent: (event: AnyWardenEvent) => void;
	/** The last turn.completed payload, as recorded (redacted). */
	last(): { text?: string; error?: string } | undefined;
}

function turnCapture(host: ((event: AnyWardenEvent) => void) | undefined): TurnCapture {
	let last: { text?: string; error?: string } | undefined;
	return {
		onEvent: (event) => {
			// A sub-agent's turn ends inside the run's: only the run's own session says how the run ended.
			if (event.kind === "turn.completed" && event.lineage === undefined) last = event.payload as { text?: string; error?: string };
			host?.(event);
		},
		last: () => last,
	};
}

function checkId(id: string, what: string): void {
	if (typeof id !== "string" || !/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(id)) {
		throw new TaskRunError(`${what} must be 1-128 letters, digits, '.', '_', ':' or '-', got ${JSON.stringify(id)}`);
	}
}
