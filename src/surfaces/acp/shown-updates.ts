/**
 * The ACP agent's one step between evidence and the editor. An editor renders what it is sent as
 * markdown and terminal text, so every text a person reads there (a tool call's title, its content
 * and diff, a message chunk, a plan entry, a permission request) passes the display rule
 * (kernel/display/visible-text) just before it is sent: controls, escapes, bidi and invisible
 * characters are spelled, never interpreted. A title is one line, its newlines spelled; content
 * keeps its lines and tabs. What is data, not display (rawInput, rawOutput, paths the editor
 * opens, ids), goes as it is, like `--json`.
 */
import type { ContentBlock, PlanEntry, RequestPermissionRequest, SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import { visibleText } from "../../kernel/display/visible-text.js";

const line = (text: string): string => visibleText(text);
const block = (text: string): string => visibleText(text, { newlines: "keep", tabs: "keep" });

/** The update as the editor is to be shown it. */
export function shownUpdate(update: SessionUpdate): SessionUpdate {
	switch (update.sessionUpdate) {
		case "user_message_chunk":
		case "agent_message_chunk":
		case "agent_thought_chunk":
			return { ...update, content: shownBlock(update.content) };
		case "tool_call":
		case "tool_call_update":
			return {
				...update,
				...(typeof update.title === "string" ? { title: line(update.title) } : {}),
				...(update.content ? { content: update.content.map(shownContent) } : {}),
			};
		case "plan":
			return { ...update, entries: update.entries.map((entry: PlanEntry) => ({ ...entry, content: line(entry.content) })) };
		default:
			return update;
	}
}

/**
 * An MCP server's request for input as the editor is to show it: its message, and the titles and
 * descriptions its form shows, spelled; the form's field names and types stay data (the answer is
 * keyed by them).
 */
export function shownElicitation<T extends { message: string; requestedSchema?: unknown }>(params: T): T {
	return { ...params, message: block(params.message), ...(params.requestedSchema === undefined ? {} : { requestedSchema: shownSchema(params.requestedSchema) }) };
}

function shownSchema(schema: unknown): unknown {
	if (Array.isArray(schema)) return schema.map(shownSchema);
	if (typeof schema !== "object" || schema === null) return schema;
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(schema)) {
		if ((key === "title" || key === "description") && typeof value === "string") out[key] = line(value);
		else if (key === "enumNames" && Array.isArray(value)) out[key] = value.map((v) => (typeof v === "string" ? line(v) : v));
		else out[key] = shownSchema(value);
	}
	return out;
}

/** The permission request as the editor is to be shown it; its options are Warden's own words. */
export function shownPermission(request: RequestPermissionRequest): RequestPermissionRequest {
	const call = request.toolCall;
	return {
		...request,
		toolCall: {
			...call,
			...(typeof call.title === "string" ? { title: line(call.title) } : {}),
			...(call.content ? { content: call.content.map(shownContent) } : {}),
		},
	};
}

function shownContent(content: ToolCallContent): ToolCallContent {
	if (content.type === "content") return { ...content, content: shownBlock(content.content) };
	if (content.type === "diff") return { ...content, oldText: content.oldText == null ? content.oldText : block(content.oldText), newText: block(content.newText) };
	return content;
}

function shownBlock(content: ContentBlock): ContentBlock {
	return content.type === "text" ? { ...content, text: block(content.text) } : content;
}
