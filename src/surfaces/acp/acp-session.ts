/**
 * One ACP session over one Warden session (same id): prompts run governed turns, whose events
 * stream as `session/update`s; asks and exact releases go to the client as
 * `session/request_permission`; a mode change ends the Warden session's run and resumes it under
 * the new mode, so every run's policy is the one recorded at its start.
 */
import { isReviewCall } from "../../kernel/evidence/review-calls.js";
import { readAnswer } from "../../runtime/session-approvals.js";
import type { AgentContext, ClientCapabilities, ContentBlock, PromptResponse, SessionModeState, SessionUpdate } from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import type { PermissionMode } from "../../kernel/admission/types.js";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import type { ReleaseRequest } from "../../kernel/flow/flow-types.js";
import type { OpenSessionOptions, ResumeSessionOptions, Runtime } from "../../runtime/runtime.js";
import type { Session } from "../../runtime/session.js";
import type { ConfirmationRequest } from "../../runtime/session-options.js";
import type { ApprovalAnswer } from "../../kernel/approval/approval-types.js";
import { isMorePermissive } from "../../config/mode-order.js";
import { isPermissionMode, MODE_VIEWS, modeState } from "./acp-modes.js";
import { type EventLike, UpdateMapper } from "./event-updates.js";
import { releaseAnswer, toolAnswer } from "./permission-options.js";
import { releasePermissionRequest, toolPermissionRequest } from "./permission-requests.js";
import { shownPermission, shownUpdate } from "./shown-updates.js";
import { sessionCallbacks as callbacks } from "./session-callbacks.js";
import { promptText, UnsupportedPromptError } from "./prompt-text.js";
import { SLASH_COMMANDS, slashCommand } from "./slash-commands.js";
import type { StreamingModel } from "./streaming-model.js";
import { viewToolCall } from "./tool-call-view.js";
import { STOP_REASONS } from "./turn-outcome.js";

/** What every session of one connection shares. */
export interface AcpConnectionState {
	runtime: Runtime;
	client: AgentContext;
	capabilities: ClientCapabilities;
}

/** The options a session is opened or resumed with, less what the ACP session itself supplies. */
export type BaseOptions = Omit<OpenSessionOptions, "workspace" | "model" | "confirm" | "release" | "files" | "terminals" | "onEvent">;

/** How a session is to run: its options, its model, and the loosest mode the editor may choose. */
export interface SessionPlan {
	base: BaseOptions;
	model: StreamingModel;
	/** The mode the host named (a flag or a config layer): the editor may choose it or a stricter one. Absent: any mode. */
	modeCap?: PermissionMode;
}

export class AcpSession {
	private session!: Session;
	private running: AbortController | undefined;
	private queue: Promise<void> = Promise.resolve();
	private live: UpdateMapper;
	/** Whether the current model step's text went out as deltas. */
	private streamed = false;

	private readonly model: StreamingModel;
	private readonly base: BaseOptions;
	private readonly modeCap: PermissionMode | undefined;

	constructor(
		private readonly connection: AcpConnectionState,
		readonly id: string,
		readonly workspace: string,
		plan: SessionPlan,
	) {
		this.live = new UpdateMapper(workspace, false);
		this.model = plan.model;
		this.base = plan.base;
		this.modeCap = plan.modeCap;
	}

	/** Opens a new Warden session in `workspace` (a real directory) and binds it to an ACP session. */
	static async open(connection: AcpConnectionState, workspace: string, plan: SessionPlan): Promise<AcpSession> {
		let acp: AcpSession | undefined;
		const session = await connection.runtime.openSession({
			...plan.base,
			workspace,
			model: plan.model,
			...callbacks(() => acp, connection),
		});
		acp = new AcpSession(connection, session.id, workspace, plan);
		acp.session = session;
		return acp;
	}

	/**
	 * Resumes a stored session, so the next prompt continues its conversation, and replays it to
	 * the client from its events (and its tool messages, for outputs) before the load is answered.
	 * Resumed first: a session another process holds is refused before anything is replayed.
	 */
	static async load(connection: AcpConnectionState, id: string, workspace: string, plan: SessionPlan): Promise<AcpSession> {
		const acp = new AcpSession(connection, id, workspace, plan);
		acp.session = await connection.runtime.resumeSession(id, acp.resumeOptions(plan.base.mode));
		const replay = new UpdateMapper(workspace, true);
		for (const event of await connection.runtime.sessionEvents(id)) for (const update of replay.forEvent(event as EventLike)) acp.push(update);
		for (const update of replay.forMessages(await connection.runtime.store.listMessages(id))) acp.push(update);
		await acp.flush();
		return acp;
	}

	get mode(): PermissionMode {
		return this.session.mode;
	}

	modes(): SessionModeState {
		return modeState(this.session.mode, this.modeCap);
	}

	/** Said after the `session/new` or `session/load` response: the slash commands this session answers. */
	announceCommands(): void {
		this.push({ sessionUpdate: "available_commands_update", availableCommands: SLASH_COMMANDS.map((c) => c.command) });
	}

	async prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse> {
		if (this.running) throw new RequestError(-32600, `session ${this.id} is already running a turn`);
		let input: string;
		try {
			input = promptText(blocks);
		} catch (err) {
			if (err instanceof UnsupportedPromptError) throw new RequestError(-32602, err.message);
			throw err;
		}
		const command = slashCommand(input);
		if (command) {
			this.say(await command.run({ runtime: this.connection.runtime, session: this.session }));
			await this.flush();
			return { stopReason: "end_turn" };
		}
		const controller = new AbortController();
		this.running = controller;
		this.model.onText = (delta) => {
			// Raw deltas only while the model's context holds nothing secret: the editor keeps what it
			// is shown, so with a secret in context the step's text comes redacted from its event instead.
			if (this.session.contextLabel.sensitivity === "secret") return;
			this.streamed = true;
			this.say(this.connection.runtime.redact(delta));
		};
		let result: Awaited<ReturnType<Session["send"]>>;
		try {
			result = await this.session.send(input, { signal: controller.signal });
		} finally {
			this.model.onText = undefined;
			this.running = undefined;
		}
		this.showOutputs();
		await this.flush();
		// A cancelled turn answers `cancelled`, whatever else it ran into on the way out.
		if (controller.signal.aborted) return { stopReason: "cancelled" };
		const reason = STOP_REASONS[result.status];
		if (reason === "error") throw new RequestError(-32603, result.error ?? `turn ended with status ${result.status}`);
		if (result.status !== "completed" && result.error) {
			this.say(`\n\nwarden: ${result.error}`);
			await this.flush();
		}
		return { stopReason: reason };
	}

	/** `session/cancel`: the running turn stops; a pending ask is withdrawn and counts as refused. */
	cancel(): void {
		this.running?.abort(new Error("cancelled by the ACP client"));
	}

	async setMode(modeId: string): Promise<void> {
		if (!isPermissionMode(modeId)) throw new RequestError(-32602, `unknown mode "${modeId}": one of ${Object.keys(MODE_VIEWS).join(", ")}`);
		if (this.modeCap && isMorePermissive(modeId, this.modeCap)) {
			throw new RequestError(-32602, `mode ${modeId} is looser than ${this.modeCap}, the mode warden acp was started with: restart it with --mode ${modeId} to allow it`);
		}
		if (this.running) throw new RequestError(-32600, `session ${this.id} is running a turn: cancel it or wait before changing the mode`);
		if (modeId === this.session.mode) return;
		const previous = this.session.mode;
		await this.session.end("ok");
		try {
			this.session = await this.connection.runtime.resumeSession(this.id, this.resumeOptions(modeId));
		} catch (err) {
			// The session stays usable under the mode it had.
			this.session = await this.connection.runtime.resumeSession(this.id, this.resumeOptions(previous));
			throw new RequestError(-32602, `mode ${modeId} refused: ${err instanceof Error ? err.message : String(err)}`);
		}
		this.push({ sessionUpdate: "current_mode_update", currentModeId: modeId });
		await this.flush();
	}

	onEvent(event: AnyWardenEvent): void {
		if (event.kind === "model.requested") this.streamed = false;
		if (event.kind === "model.responded" && !this.streamed && event.payload.text) this.say(event.payload.text);
		for (const update of this.live.forEvent(event as EventLike)) this.push(update);
		// Each step's tool messages are stored before the next request and before the turn ends.
		if (event.kind === "model.requested" || event.kind === "turn.completed") this.showOutputs();
	}

	async askPermission(asked: ConfirmationRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
		// The request is the call as it runs, secrets and all: the editor is shown it masked like the evidence.
		const request = this.connection.runtime.redact(asked);
		const view = this.live.view(request.callId) ?? viewToolCall(request.tool, request.arguments, this.workspace);
		await this.flush();
		const response = await this.connection.client.request("session/request_permission", shownPermission(toolPermissionRequest(this.id, request, view)), { cancellationSignal: signal });
		const answer = toolAnswer(response.outcome);
		// A review of an MCP definition is no call that will run: its entry ends with the answer.
		if (isReviewCall(request.callId)) this.push({ sessionUpdate: "tool_call_update", toolCallId: request.callId, status: ["allow_once", "always_allow"].includes(readAnswer(answer)?.kind ?? "deny") ? "completed" : "failed" });
		return answer;
	}

	async askRelease(request: ReleaseRequest, signal: AbortSignal): Promise<boolean> {
		await this.flush();
		const response = await this.connection.client.request("session/request_permission", shownPermission(releasePermissionRequest(this.id, this.connection.runtime.redact(request))), { cancellationSignal: signal });
		return releaseAnswer(response.outcome);
	}

	/** Shows a client terminal with the tool call it runs for, once the call's earlier updates are out. */
	async showTerminal(callId: string, terminalId: string): Promise<void> {
		const update = this.live.terminal(callId, terminalId);
		if (update) this.push(update);
		await this.flush();
	}

	/** Cancels a running turn and ends the Warden session's run, so its evidence is complete. */
	async close(): Promise<void> {
		this.cancel();
		await this.session.cancel("the ACP connection closed");
		await this.session.end("ok");
	}

	/** Waits until every update queued so far has been written. */
	flush(): Promise<void> {
		return this.queue;
	}

	private resumeOptions(mode: PermissionMode | undefined): ResumeSessionOptions {
		return { ...this.base, ...(mode ? { mode } : {}), model: this.model, ...callbacks(() => this, this.connection) };
	}

	private say(text: string): void {
		if (text !== "") this.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
	}

	private push(update: SessionUpdate): void {
		this.queue = this.queue.then(() => this.notify(update)).catch(() => undefined);
	}

	/** Every update goes out here, through the display rule. */
	private notify(update: SessionUpdate): Promise<void> {
		return this.connection.client.notify("session/update", { sessionId: this.id, update: shownUpdate(update) });
	}

	private showOutputs(): void {
		this.queue = this.queue
			.then(async () => {
				const messages = await this.connection.runtime.store.listMessages(this.id);
				for (const update of this.live.forMessages(messages)) await this.notify(update);
			})
			.catch(() => undefined);
	}
}
