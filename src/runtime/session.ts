/** A conversation in one workspace under one policy; runs one governed turn at a time. */
import type { PolicyContext } from "../kernel/admission/types.js";
import type { AnyWardenEvent } from "../kernel/evidence/event-types.js";
import type { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import type { Message, ModelProvider } from "../models/provider.js";
import type { Store } from "../store/store.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolLimits } from "../tools/tool.js";
import { EventChannel } from "./event-channel.js";
import type { ConfirmCallback } from "./session-options.js";
import { type Decider, runTurn, type TurnResult } from "./turn-loop.js";

export interface SessionParts {
	recorder: EvidenceRecorder;
	store: Store;
	model: ModelProvider;
	tools: ToolRegistry;
	decider: Decider;
	policy: PolicyContext;
	confirm: ConfirmCallback | undefined;
	limits: ToolLimits;
	maxSteps: number;
	env: NodeJS.ProcessEnv;
	history: Message[];
	/** Receives each event after it is persisted; the session routes it to the running turn too. */
	setTurnListener(listener: ((event: AnyWardenEvent) => void) | undefined): void;
	onEnd(): void;
}

export interface RunOptions {
	/** Aborting cancels the turn: waiting approvals are refused, running tools are cancelled. */
	signal?: AbortSignal;
}

export class Session {
	private running = false;
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

	/** Runs one turn; yields its events as they are recorded and returns the turn's result. */
	async *run(input: string, options: RunOptions = {}): AsyncGenerator<AnyWardenEvent, TurnResult, undefined> {
		if (this.ended) throw new Error(`session ${this.id} has ended`);
		if (this.running) throw new Error(`session ${this.id} is already running a turn`);
		this.running = true;
		const internal = new AbortController();
		const onAbort = () => internal.abort(options.signal?.reason);
		if (options.signal?.aborted) internal.abort(options.signal.reason);
		options.signal?.addEventListener("abort", onAbort, { once: true });
		const channel = new EventChannel<AnyWardenEvent>();
		this.parts.setTurnListener((event) => channel.push(event));
		let finished = false;
		try {
			const { recorder, store } = this.parts;
			recorder.setTurn(await store.nextTurn(this.id));
			const turn = runTurn(
				{
					...this.parts,
					trackCall: (callId, controller) => {
						this.calls.set(callId, controller);
						return () => this.calls.delete(callId);
					},
					remember: (message) => recorder.message(message),
				},
				this.parts.history,
				input,
				internal.signal,
			).finally(() => channel.close());
			yield* channel.drain();
			const result = await turn;
			finished = true;
			return result;
		} finally {
			// A host that stops reading mid-turn cancels the turn rather than leaving it running unseen.
			if (!finished) internal.abort(new Error("host stopped reading the turn"));
			options.signal?.removeEventListener("abort", onAbort);
			this.parts.setTurnListener(undefined);
			this.running = false;
		}
	}

	/** Runs one turn to its end, handing each event to `onEvent`. */
	async send(input: string, options: RunOptions & { onEvent?: (event: AnyWardenEvent) => void } = {}): Promise<TurnResult> {
		const turn = this.run(input, options);
		for (;;) {
			const next = await turn.next();
			if (next.done) return next.value;
			options.onEvent?.(next.value);
		}
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
		if (this.running) throw new Error(`session ${this.id} is still running a turn`);
		this.ended = true;
		const { recorder, store } = this.parts;
		await recorder.emit("session.ended", { status }, 0);
		await recorder.audit("session.ended", { status }, undefined, 0);
		await store.endSession(this.id, status, new Date().toISOString());
		this.parts.onEnd();
	}
}
