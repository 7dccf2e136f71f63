/**
 * Warden's events as ACP `session/update`s. Live, the model's words stream as deltas of their own,
 * so only the tool calls, their statuses and the plan come from events; replaying a stored session
 * (`session/load`) also turns the user's inputs and the model's answers back into message chunks.
 * A tool's output is not in its events: it is the tool message stored for the model, shown once it
 * is stored (`forMessages`), exactly as the model was given it (redacted or withheld alike).
 */
import type { SessionUpdate, ToolCallContent, ToolCallStatus } from "@agentclientprotocol/sdk";
import type { StoredMessage } from "../../store/store.js";
import { codeBlock } from "./code-block.js";
import { planEntries } from "./todo-plan.js";
import { textContent, type ToolCallView, viewToolCall } from "./tool-call-view.js";

/** An event as read here: any kind, the todo list's included (whose type lives with its tool). */
export interface EventLike {
	kind: string;
	payload: unknown;
}

interface CallPayload {
	call_id: string;
	tool: string;
	arguments?: unknown;
	reason?: string;
	error?: string;
}

/** The terminal status a call's last event gives it, with the words that say why. */
const CALL_ENDINGS: Readonly<Record<string, { status: ToolCallStatus; say?: (p: CallPayload) => string }>> = {
	"tool.started": { status: "in_progress" },
	"tool.completed": { status: "completed" },
	"tool.failed": { status: "failed", say: (p) => `Failed: ${p.error ?? ""}` },
	"tool.invalid": { status: "failed", say: (p) => `Invalid call: ${p.error ?? ""}` },
	"tool.denied": { status: "failed", say: (p) => `Denied by Warden: ${p.reason ?? ""}` },
	"tool.cancelled": { status: "failed", say: (p) => `Cancelled: ${p.reason ?? ""}` },
};

export class UpdateMapper {
	private readonly calls = new Map<string, ToolCallView>();
	private readonly shown = new Set<string>();

	constructor(
		private readonly workspace: string,
		private readonly replay: boolean,
	) {}

	forEvent(event: EventLike): SessionUpdate[] {
		const p = event.payload as Record<string, unknown>;
		switch (event.kind) {
			case "turn.started":
				return this.replay && typeof p.input === "string" ? [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: p.input } }] : [];
			case "model.responded":
				return this.replay && typeof p.text === "string" && p.text !== "" ? [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: p.text } }] : [];
			case "todo.updated":
				return [{ sessionUpdate: "plan", entries: planEntries(p) }];
			case "tool.proposed":
				return [this.proposed(p as unknown as CallPayload)];
			default: {
				const ending = CALL_ENDINGS[event.kind];
				if (!ending) return [];
				const call = p as unknown as CallPayload;
				const view = this.calls.get(call.call_id);
				const update: SessionUpdate = { sessionUpdate: "tool_call_update", toolCallId: call.call_id, status: ending.status };
				if (ending.say) update.content = [...(view?.content ?? []), textContent(ending.say(call))];
				return [update];
			}
		}
	}

	/** The output of each call seen here whose tool message is now stored and was not shown yet. */
	/** Embeds a client terminal in a call's content (kept there in the call's later updates). */
	terminal(callId: string, terminalId: string): SessionUpdate | undefined {
		const view = this.calls.get(callId);
		if (!view) return undefined;
		view.content = [...view.content, { type: "terminal", terminalId }];
		return { sessionUpdate: "tool_call_update", toolCallId: callId, content: view.content };
	}

	forMessages(messages: readonly StoredMessage[]): SessionUpdate[] {
		const updates: SessionUpdate[] = [];
		for (const stored of messages) {
			const message = stored.message as { role?: unknown; tool_call_id?: unknown; content?: unknown };
			if (message.role !== "tool" || typeof message.tool_call_id !== "string" || typeof message.content !== "string") continue;
			const view = this.calls.get(message.tool_call_id);
			if (!view || this.shown.has(message.tool_call_id)) continue;
			this.shown.add(message.tool_call_id);
			const output: ToolCallContent = textContent(view.kind === "execute" ? codeBlock(message.content) : message.content);
			updates.push({ sessionUpdate: "tool_call_update", toolCallId: message.tool_call_id, content: [...view.content, output], rawOutput: { content: message.content } });
		}
		return updates;
	}

	/** The view of a call proposed in this session (for a permission request about it). */
	view(callId: string): ToolCallView | undefined {
		return this.calls.get(callId);
	}

	private proposed(call: CallPayload): SessionUpdate {
		const view = viewToolCall(call.tool, call.arguments, this.workspace);
		this.calls.set(call.call_id, view);
		return {
			sessionUpdate: "tool_call",
			toolCallId: call.call_id,
			name: call.tool,
			title: view.title,
			kind: view.kind,
			status: "pending",
			rawInput: call.arguments,
			locations: view.locations,
			content: view.content,
		};
	}
}
