/**
 * The chat behind the screen: one session at a time in the workspace, its events folded into the
 * transcript, asks put in front of the person and answered by key, and the slash commands. The
 * screen (Ink) and the plain surface both draw its view and call it; neither holds state of its own.
 */
import type { PermissionMode } from "../../kernel/admission/types.js";
import { sandboxProfileFor } from "../../kernel/admission/modes.js";
import type { ApprovalResponse } from "../../kernel/approval/approval-types.js";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import type { ReleaseRequest } from "../../kernel/flow/flow-types.js";
import { createModel } from "../../models/model-spec.js";
import type { ModelProvider } from "../../models/provider.js";
import type { ToolOutputEvent } from "../../runtime/live-tool-output.js";
import { elicitByQuestions } from "../../runtime/mcp/elicit-questions.js";
import type { OpenSessionOptions, Runtime } from "../../runtime/runtime.js";
import type { Session } from "../../runtime/session.js";
import type { ConfirmationRequest } from "../../runtime/session-options.js";
import { resumeOptionsFromFlags, sessionOptionsFromFlags, withoutConfig } from "../cli/session-options.js";
import { APPROVAL_KEYS, keyName, YES_NO_KEYS } from "./ask-keys.js";
import { budgetLine } from "./budget-line.js";
import type { ChatFlags } from "./chat-command.js";
import type { ChatView, PendingAsk, StatusInfo, TodoItem } from "./chat-state.js";
import { observedModel } from "./observed-model.js";
import { Transcript } from "./transcript.js";
import { userShellModel } from "./user-shell.js";

/** What an ask resolves to: an approval's response, a yes/no, or a typed answer. */
type AskAnswer = ApprovalResponse | boolean | string;

interface QueuedAsk {
	ask: PendingAsk;
	resolve(answer: AskAnswer): void;
	/** Set by the surface once the ask is on screen: keys before that never answer it. */
	armed: boolean;
}

/** Shift+Tab moves between these; full-access is entered only by /mode, after a yes. */
const CYCLE: Readonly<Record<PermissionMode, PermissionMode>> = {
	plan: "workspace-write",
	"workspace-write": "plan",
	"read-only": "plan",
	"full-access": "plan",
};

export class ChatController {
	readonly transcript: Transcript;
	private session!: Session;
	private model!: ModelProvider;
	private todos: TodoItem[] = [];
	private asks: QueuedAsk[] = [];
	private busy = false;
	/** The session whose turn is running: the chat's, or a `!` command's own. */
	private active: Session | undefined;
	private planOffer = false;
	private context: { tokens?: number; estimated: boolean } = { estimated: true };
	private readonly listeners = new Set<() => void>();
	private readonly eventListeners = new Set<(event: AnyWardenEvent) => void>();
	private readonly outputListeners = new Set<(event: ToolOutputEvent) => void>();
	private snapshot: ChatView | undefined;
	/** A Ctrl-C at an idle prompt: the next one exits. */
	private exitArmed = false;
	exited = false;

	private constructor(
		readonly runtime: Runtime,
		private readonly flags: ChatFlags,
	) {
		this.transcript = new Transcript((text) => runtime.redact(text));
	}

	/** Opens (or, with --resume, resumes) the session the chat works in. */
	static async open(runtime: Runtime, flags: ChatFlags): Promise<ChatController> {
		const chat = new ChatController(runtime, flags);
		if (flags.resume !== undefined) await chat.resume(flags.resume);
		else await chat.openFresh();
		return chat;
	}

	// ---- the view -------------------------------------------------------------------------------

	subscribe(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** The same object until something changes, as React's external stores want it. */
	view(): ChatView {
		this.snapshot ??= {
			entries: this.transcript.entries,
			streaming: this.transcript.streaming,
			status: this.status(),
			todos: this.todos,
			ask: this.asks[0]?.ask,
			busy: this.busy,
			planOffer: this.planOffer,
		};
		return this.snapshot;
	}

	/** Every event of the chat's sessions as recorded (--plain prints them). */
	onRawEvent(listener: (event: AnyWardenEvent) => void): () => void {
		this.eventListeners.add(listener);
		return () => this.eventListeners.delete(listener);
	}

	/** A running command's output lines as they come (--plain prints them). */
	onOutput(listener: (event: ToolOutputEvent) => void): () => void {
		this.outputListeners.add(listener);
		return () => this.outputListeners.delete(listener);
	}

	changed(): void {
		this.snapshot = undefined;
		for (const listener of this.listeners) listener();
	}

	private status(): StatusInfo {
		const mode = this.session.mode;
		return {
			session: this.session.id,
			mode,
			model: this.model.spec,
			sandbox: sandboxProfileFor(mode, this.flags.sandbox === "required"),
			...(this.context.tokens !== undefined ? { contextTokens: this.context.tokens } : {}),
			contextEstimated: this.context.estimated,
			...(this.model.contextWindow !== undefined ? { contextWindow: this.model.contextWindow } : {}),
			budget: budgetLine(this.session.budgetUsage()),
		};
	}

	get sessionId(): string {
		return this.session.id;
	}

	get currentSession(): Session {
		return this.session;
	}

	// ---- sessions -------------------------------------------------------------------------------

	private onEvent = (event: AnyWardenEvent): void => {
		this.transcript.apply(event);
		for (const listener of this.eventListeners) listener(event);
		if (event.lineage === undefined && event.kind === "todo.updated") this.todos = event.payload.items;
		this.changed();
	};

	/** `context`: whether this model's requests are the chat's context (a `!` command's are not). */
	private wrap(model: ModelProvider, context = true): ModelProvider {
		return observedModel(model, {
			onText: (delta) => {
				this.transcript.streamed(delta);
				this.changed();
			},
			onToolResult: (callId, content) => {
				this.transcript.toolResult(callId, content);
				this.changed();
			},
			onContext: (tokens, estimated) => {
				if (!context) return;
				this.context = { tokens, estimated };
				this.changed();
			},
		});
	}

	/** The person answers asks here: the session's confirm and release callbacks. */
	private hostCallbacks(): Pick<OpenSessionOptions, "confirm" | "release" | "askUser" | "elicit" | "onToolOutput"> {
		return {
			onToolOutput: (event) => {
				this.transcript.liveOutput(event.payload.call_id, event.payload.lines);
				for (const listener of this.outputListeners) listener(event);
				this.changed();
			},
			// An ask is drawn as the evidence holds it: redacted before it reaches the queue the screen reads.
			confirm: async (request: ConfirmationRequest, signal: AbortSignal) => {
				const shown = this.runtime.redact(request);
				if (shown.diff !== undefined) this.transcript.attachDiff(shown.callId, shown.diff);
				const answer = await this.askPerson({ kind: "approval", request: shown }, signal);
				return typeof answer === "object" ? answer : answer === true;
			},
			release: async (request: ReleaseRequest, signal: AbortSignal) => (await this.askPerson({ kind: "release", request: this.runtime.redact(request) }, signal)) === true,
			askUser: async (question: string, signal: AbortSignal) => {
				const answer = await this.askPerson({ kind: "question", question: this.runtime.redact(question) }, signal);
				if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("the question was withdrawn");
				return typeof answer === "string" ? answer : "";
			},
			// A server's request for input: its message and fields, each a question to the person here.
			elicit: elicitByQuestions(async (question, signal) => {
				const answer = await this.askPerson({ kind: "question", question }, signal);
				return signal.aborted || typeof answer !== "string" ? undefined : answer;
			}),
		};
	}

	private async openFresh(): Promise<void> {
		const options = withoutConfig(await sessionOptionsFromFlags(this.flags, this.onEvent));
		this.model = this.wrap(await createModel(options.model as string, process.env));
		this.session = await this.runtime.openSession({ ...options, ...this.hostCallbacks(), model: this.model });
		this.transcript.notice(`session ${this.session.id} in ${this.session.workspace}`);
	}

	/** Resumes `id` (its workspace), with the mode or model given, else the flags'. */
	private async resume(id: string, change: { mode?: PermissionMode; model?: ModelProvider } = {}): Promise<void> {
		const row = await this.runtime.getSession(id);
		if (!row) throw new Error(`unknown session ${id}`);
		const options = await resumeOptionsFromFlags(this.flags, this.onEvent, row);
		if (change.model) this.model = change.model;
		else if (!this.model || id !== this.session?.id) this.model = this.wrap(await createModel((options.model as string | undefined) ?? row.model, process.env));
		this.session = await this.runtime.resumeSession(id, { ...options, ...this.hostCallbacks(), model: this.model, ...(change.mode ? { mode: change.mode } : {}) });
		this.todos = lastTodos(await this.runtime.sessionEvents(id));
		this.transcript.notice(`resumed session ${id} (${this.session.mode})`);
	}

	/** Ends this run of the session and resumes it with another mode or model: same conversation, new policy. */
	async reopen(change: { mode?: PermissionMode; model?: ModelProvider }): Promise<void> {
		const id = this.session.id;
		await this.session.end("ok");
		await this.resume(id, change);
		this.changed();
	}

	async switchModel(spec: string): Promise<void> {
		await this.reopen({ model: this.wrap(await createModel(spec, process.env)) });
	}

	async switchTo(id: string): Promise<void> {
		await this.session.end("ok");
		this.transcript.clear();
		await this.resume(id);
		this.changed();
	}

	// ---- turns ----------------------------------------------------------------------------------

	get running(): boolean {
		return this.busy;
	}

	/** Runs one turn of the conversation; the transcript shows it as it goes. */
	async send(text: string, echo = true): Promise<void> {
		if (echo) this.transcript.add({ kind: "user", text });
		this.busy = true;
		this.planOffer = false;
		this.exitArmed = false;
		this.changed();
		try {
			const mode = this.session.mode;
			this.active = this.session;
			const result = await this.session.send(text);
			if (mode === "plan" && result.status === "completed" && result.text.trim() !== "") {
				this.transcript.notice("plan kept with the session (warden sessions show prints it)", "ok");
				this.planOffer = true;
			}
		} catch (err) {
			this.transcript.notice(oneLine(err), "error");
		} finally {
			this.busy = false;
			this.active = undefined;
			this.changed();
		}
		if (this.planOffer) await this.offerPlan();
	}

	/** `!<command>`: the person's own shell command, in a session of its own (src/surfaces/tui/user-shell.ts). */
	async runShell(command: string): Promise<void> {
		if (command === "") {
			this.transcript.notice("usage: !<command>, e.g. !git status", "error");
			this.changed();
			return;
		}
		if (this.busy) {
			this.transcript.notice("a turn is running: wait, or Esc / Ctrl-C to stop it", "error");
			this.changed();
			return;
		}
		this.transcript.add({ kind: "user", text: `!${command}` });
		this.busy = true;
		this.changed();
		try {
			const flags = { ...this.flags, workspace: this.session.workspace, mode: this.session.mode };
			const options = withoutConfig(await sessionOptionsFromFlags(flags, this.onEvent));
			const shell = await this.runtime.openSession({ ...options, ...this.hostCallbacks(), model: this.wrap(userShellModel(command), false) });
			this.active = shell;
			const result = await shell.send(`!${command}`);
			await shell.end(result.status === "completed" ? "ok" : "error");
		} catch (err) {
			this.transcript.notice(oneLine(err), "error");
		} finally {
			this.busy = false;
			this.active = undefined;
			this.changed();
		}
	}

	/** /mode and Shift+Tab: the same conversation under another mode; full-access only after a yes. */
	async changeMode(mode: PermissionMode): Promise<void> {
		if (mode === this.session.mode) return;
		if (mode === "full-access") {
			const yes = await this.askPerson({ kind: "yesno", question: "Enter full-access? Shell commands run without a sandbox and writes are not asked about. [y/n]" }, new AbortController().signal);
			if (yes !== true) {
				this.transcript.notice(`staying in ${this.session.mode}`);
				this.changed();
				return;
			}
		}
		await this.reopen({ mode });
		this.transcript.notice(`mode ${mode}`, "ok");
		this.changed();
	}

	/** Shift+Tab. */
	async cycleMode(): Promise<void> {
		if (this.busy || this.asks.length > 0) return;
		await this.changeMode(CYCLE[this.session.mode]);
	}

	/** After a plan: carry it out in workspace-write, if the person says so. */
	private async offerPlan(): Promise<void> {
		const yes = await this.askPerson({ kind: "yesno", question: "Switch to workspace-write and carry out the plan? [y/n]" }, new AbortController().signal);
		this.planOffer = false;
		if (yes !== true) {
			this.changed();
			return;
		}
		await this.reopen({ mode: "workspace-write" });
		await this.send("Carry out the plan above.", true);
	}

	/** Esc: an ask is refused; else the running tools are cancelled; else the model's turn is interrupted. */
	interrupt(): void {
		if (this.asks[0]) {
			this.answer("", true);
			return;
		}
		const active = this.active;
		if (!this.busy || !active) return;
		const running = this.transcript.running();
		if (running.length > 0) {
			for (const call of running) active.cancelToolCall(call);
			return;
		}
		void active.cancel("interrupted at the terminal (Esc)");
	}

	/** Ctrl-C: cancels the running turn; at an idle prompt the first warns and the second exits (true). */
	async cancel(): Promise<boolean> {
		if (this.busy) {
			this.transcript.notice("cancelling the turn…");
			this.changed();
			await this.active?.cancel("cancelled at the terminal (Ctrl-C)");
			return false;
		}
		if (this.exitArmed) return true;
		this.exitArmed = true;
		this.transcript.notice("press Ctrl-C again (or Ctrl-D) to exit");
		this.changed();
		return false;
	}

	// ---- asks -----------------------------------------------------------------------------------

	/** Puts an ask in the queue; the surface shows the first and arms it once it is drawn. */
	askPerson(ask: PendingAsk, signal: AbortSignal): Promise<AskAnswer> {
		return new Promise((resolve) => {
			const queued: QueuedAsk = {
				ask,
				armed: false,
				resolve: (answer) => {
					signal.removeEventListener("abort", onAbort);
					this.asks = this.asks.filter((q) => q !== queued);
					this.changed();
					resolve(answer);
				},
			};
			const onAbort = () => queued.resolve(ask.kind === "approval" ? { kind: "deny" } : false);
			if (signal.aborted) return onAbort();
			signal.addEventListener("abort", onAbort, { once: true });
			this.asks = [...this.asks, queued];
			this.changed();
		});
	}

	/** The surface has drawn the current ask: from now on keys answer it. */
	arm(ask: PendingAsk): void {
		const current = this.asks[0];
		if (current && current.ask === ask) current.armed = true;
	}

	get asking(): PendingAsk | undefined {
		return this.asks[0]?.ask;
	}

	/** A key (or a typed line for a question) for the current ask; false when it does not answer it. */
	answer(input: string, isEscape = false): boolean {
		const current = this.asks[0];
		if (!current?.armed) return false;
		const key = keyName(input, isEscape);
		if (current.ask.kind === "approval") {
			const kind = APPROVAL_KEYS[key];
			if (kind === undefined) return false;
			current.resolve({ kind, by: "terminal" });
			return true;
		}
		if (current.ask.kind === "question") {
			current.resolve(isEscape ? "" : input);
			return true;
		}
		const yes = YES_NO_KEYS[key];
		if (yes === undefined) return false;
		current.resolve(yes);
		return true;
	}

	setTodos(items: TodoItem[]): void {
		this.todos = items;
		this.changed();
	}

	async close(): Promise<void> {
		this.exited = true;
		for (const q of [...this.asks]) q.resolve(q.ask.kind === "approval" ? { kind: "deny" } : false);
		if (this.busy) await this.active?.cancel("the terminal closed");
		await this.session.end("ok").catch(() => undefined);
	}
}

function lastTodos(events: readonly AnyWardenEvent[]): TodoItem[] {
	for (let i = events.length - 1; i >= 0; i--) {
		const e = events[i] as AnyWardenEvent;
		if (e.kind === "todo.updated") return e.payload.items;
	}
	return [];
}

export function oneLine(err: unknown): string {
	const text = err instanceof Error ? err.message : String(err);
	return (text.split("\n").find((l) => l.trim() !== "") ?? text).trim();
}
