/** A conversation in one workspace under one policy; runs one governed turn at a time. */
import type { ToolOutputChannel } from "./live-tool-output.js";
import type { McpRouter } from "../kernel/kernel-mcp.js";
import type { MemoryBinding } from "../kernel/kernel-memory.js";
import type { PolicyContext } from "../kernel/admission/types.js";
import type { Authority } from "../kernel/authority/authority.js";
import type { Budget } from "../kernel/budget/budget.js";
import type { BudgetLimits, BudgetUsage } from "../kernel/budget/budget-types.js";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import type { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import type { ParsedShell } from "../kernel/admission/shell/shell-types.js";
import type { EditorFiles } from "../providers/editor-fs-provider.js";
import type { EditorTerminals } from "../providers/editor-terminal-provider.js";
import type { Label } from "../kernel/flow/label.js";
import type { SessionFlow } from "../kernel/flow/session-flow.js";
import type { Message, ModelProvider } from "../models/provider.js";
import type { Store } from "../store/store.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolLimits } from "../tools/tool.js";
import type { CompactionOutcome, ContextKeeper } from "./context/context-keeper.js";
import { EventChannel } from "./event-channel.js";
import type { SessionHooks } from "./hooks/session-hooks.js";
import type { SessionApprovals } from "./session-approvals.js";
import type { ConfirmCallback } from "./session-options.js";
import type { SubagentLauncher } from "./subagents.js";
import type { SessionSkills } from "./skills/session-skills.js";
import { type Decider, type ModelContext, runTurn, type TurnResult } from "./turn-loop.js";

export interface SessionParts {
	recorder: EvidenceRecorder;
	store: Store;
	model: ModelProvider;
	tools: ToolRegistry;
	decider: Decider;
	policy: PolicyContext;
	confirm: ConfirmCallback | undefined;
	/** Asks, leases and persisted answers; its rules join `policy` as they are granted. */
	approvals: SessionApprovals;
	limits: ToolLimits;
	maxSteps: number;
	modelTimeoutMs: number;
	env: NodeJS.ProcessEnv;
	history: Message[];
	/** The session's budget, under the host's; each turn charges a child of it. */
	sessionBudget: Budget;
	/** The capability set and task ceiling every primitive of the session is admitted against. */
	authority: Authority;
	/** Limits each turn's budget gets. */
	turnBudget: BudgetLimits;
	/** Labels, sinks and releases: what the model's context holds and where data may go. */
	flow: SessionFlow;
	/** The label of each message in `history`, and how many the model has been sent. */
	context: ModelContext;
	parseShell?: (command: string) => ParsedShell;
	/** The session's MCP servers, which mcp.call dispatches to; absent, no MCP tool can run. */
	mcp?: McpRouter;
	/** Asked before each turn's model steps: MCP definitions no human approved yet (src/runtime/mcp/mcp-review-asks.ts). */
	reviewDefinitions?: (signal: AbortSignal) => Promise<void>;
	/** Awaited when the session ends, before onEnd (the MCP servers it started are stopped). */
	release?: () => Promise<void>;
	/** Answers ask_user (SessionOptions.askUser). */
	askUser?: (question: string, signal: AbortSignal) => Promise<string | undefined>;
	/** Hands running commands' output to the host as it is written (SessionOptions.onToolOutput). */
	toolOutput?: ToolOutputChannel;
	/** Spawns child sessions for the `agent` tool; absent, the tool reports sub-agents unavailable. */
	subagents?: SubagentLauncher;
	/** An editor's buffers the file tools use instead of the disk (SessionOptions.files). */
	files?: EditorFiles;
	/** An editor's terminals a sandboxed command may run in (SessionOptions.terminals). */
	terminals?: EditorTerminals;
	/** The context's counter, compaction and manifests; absent (a sub-agent's session), nothing is compacted. */
	keeper?: ContextKeeper;
	/** The skills the session offers (its catalogue and what is active); absent, none. */
	skills?: SessionSkills;
	/** The session's hooks: PreToolUse and the rest run inside its turns; SessionEnd when it ends. */
	hooks?: SessionHooks;
	/** The session's memory (src/runtime/session-memory.ts); absent, no memory tool can run and no outcome is kept. */
	memory?: MemoryBinding;
	/** Receives each event after it is persisted; the session routes it to the running turn too. */
	setTurnListener(listener: ((event: AnyWardenEvent) => void) | undefined): void;
	onEnd(): void;
}

export interface RunOptions {
	/** Aborting cancels the turn: waiting approvals are refused, running tools are cancelled. */
	signal?: AbortSignal;
}

/** The turn in progress: how to cancel it, and when its evidence is complete. */
interface RunningTurn {
	controller: AbortController;
	settled: Promise<void>;
}

export class Session {
	private current: RunningTurn | undefined;
	private ended = false;
	private readonly calls = new Map<string, AbortController>();

	constructor(private readonly parts: SessionParts) {}

	get id(): string {
		return this.parts.recorder.session;
	}

	get workspace(): string {
		return this.parts.policy.workspace;
	}

	get mode(): PolicyContext["mode"] {
		return this.parts.policy.mode;
	}

	/** The join of everything the model's context holds; a sub-agent's answer carries it back to its parent. */
	get contextLabel(): Label {
		return this.parts.flow.contextLabel;
	}

	/** What the session's turns have used so far, with the session-wide limits. */
	budgetUsage(): BudgetUsage {
		return this.parts.sessionBudget.usage();
	}

	/** Runs one turn; yields its events as they are recorded and returns the turn's result. */
	async *run(input: string, options: RunOptions = {}): AsyncGenerator<AnyWardenEvent, TurnResult, undefined> {
		if (this.ended) throw new Error(`session ${this.id} has ended`);
		if (this.current) throw new Error(`session ${this.id} is already running a turn`);
		const controller = new AbortController();
		const onAbort = () => controller.abort(options.signal?.reason);
		if (options.signal?.aborted) controller.abort(options.signal.reason);
		options.signal?.addEventListener("abort", onAbort, { once: true });
		const channel = new EventChannel<AnyWardenEvent>();
		this.parts.setTurnListener((event) => channel.push(event));
		const { recorder, store } = this.parts;
		const running: RunningTurn = { controller, settled: Promise.resolve() };
		this.current = running;
		// The session counts as running until the turn itself settles, not until the host stops
		// reading: the recorder's turn number and listener belong to this turn until then.
		const turn = (async () => {
			try {
				recorder.setTurn(await store.nextTurn(this.id));
				await this.parts.reviewDefinitions?.(controller.signal);
				return await runTurn(
					{
						...this.parts,
						budget: this.parts.sessionBudget.child("turn", this.parts.turnBudget),
						subagents: this.parts.subagents?.forTurn(controller.signal),
						trackCall: (callId, callController) => {
							this.calls.set(callId, callController);
							return () => this.calls.delete(callId);
						},
						remember: async (message, label, writer) => {
							await writer.message(message, label);
							this.parts.keeper?.note(message, label);
						},
					},
					this.parts.history,
					input,
					controller.signal,
				);
			} finally {
				options.signal?.removeEventListener("abort", onAbort);
				this.parts.setTurnListener(undefined);
				if (this.current === running) this.current = undefined;
				channel.close();
			}
		})();
		running.settled = turn.then(
			() => undefined,
			() => undefined,
		);
		let finished = false;
		try {
			yield* channel.drain();
			const result = await turn;
			finished = true;
			return result;
		} finally {
			if (!finished) {
				// A host that stops reading mid-turn cancels the turn rather than leaving it running unseen.
				controller.abort(new Error("host stopped reading the turn"));
				await running.settled;
			}
		}
	}

	/** Runs one turn to its end, handing each event to `onEvent`. */
	async send(input: string, options: RunOptions & { onEvent?: (event: AnyWardenEvent) => void } = {}): Promise<TurnResult> {
		const turn = this.run(input, options);
		try {
			for (;;) {
				const next = await turn.next();
				if (next.done) return next.value;
				options.onEvent?.(next.value);
			}
		} catch (err) {
			// onEvent threw: closing the generator cancels the turn and waits until its evidence is complete.
			await turn.throw(err).catch(() => undefined);
			throw err;
		}
	}

	/**
	 * Summarises the oldest turns now, whatever the threshold says (the terminal's `/compact`):
	 * the same governed model call a turn makes when its context fills, charged to the session.
	 */
	async compact(): Promise<CompactionOutcome> {
		if (this.ended) throw new Error(`session ${this.id} has ended`);
		if (this.current) throw new Error(`session ${this.id} is running a turn: compact between turns`);
		const keeper = this.parts.keeper;
		if (!keeper) throw new Error(`session ${this.id} keeps no context of its own to compact (a sub-agent's)`);
		const { sessionBudget, turnBudget, history, tools } = this.parts;
		return keeper.compact({ ...this.parts, budget: sessionBudget.child("turn", turnBudget), history, tools: tools.schemas(), signal: new AbortController().signal }, "requested");
	}

	/** The context's size as the next request would count it, with the model's window. */
	contextUsage(): { tokens: number; window: number; limit: number } | undefined {
		const keeper = this.parts.keeper;
		if (!keeper) return undefined;
		return { tokens: keeper.counter.request(this.parts.history, this.parts.tools.schemas()), window: keeper.settings.window, limit: keeper.settings.limit };
	}

	/** Cancels the running turn, if any, and waits until its evidence is complete. */
	async cancel(reason = "turn cancelled by the host"): Promise<void> {
		const current = this.current;
		if (!current) return;
		current.controller.abort(new Error(reason));
		await current.settled;
	}

	/** Cancels one running tool call; false if no such call is running. */
	cancelToolCall(callId: string): boolean {
		const controller = this.calls.get(callId);
		if (!controller) return false;
		controller.abort(new Error(`tool call ${callId} cancelled by the host`));
		return true;
	}

	/** Records the end of the session. */
	async end(status: "ok" | "error" = "ok"): Promise<void> {
		if (this.ended) return;
		if (this.current) throw new Error(`session ${this.id} is still running a turn`);
		this.ended = true;
		const { recorder, store } = this.parts;
		await this.parts.hooks?.fire("SessionEnd", { reason: status === "ok" ? "other" : "error" }, { turn: 0 });
		await recorder.emit("session.ended", { status }, 0);
		await recorder.audit("session.ended", { status }, undefined, 0);
		await store.endSession(this.id, status, new Date().toISOString());
		await this.parts.release?.();
		this.parts.onEnd();
	}
}
