import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { shownElicitation, shownUpdate } from "./shown-updates.js";

const TITLE = "printf x\u001b]0;t\u0007\nrm -rf \u202e/";

describe("shownUpdate", () => {
	it("spells a tool call's title on one line and its content and diff by lines; rawInput and paths stay data", () => {
		const update: SessionUpdate = {
			sessionUpdate: "tool_call",
			toolCallId: "call_1",
			title: TITLE,
			kind: "execute",
			status: "pending",
			rawInput: { command: TITLE },
			locations: [{ path: "/w/a\u200b.txt" }],
			content: [
				{ type: "content", content: { type: "text", text: "line 1\u0008\nline\t2" } },
				{ type: "diff", path: "/w/a\u200b.txt", oldText: null, newText: "new\u001b[8m\n" },
			],
		};
		expect(shownUpdate(update)).toEqual({
			...update,
			title: "printf x\\x1b]0;t\\x07\\x0arm -rf \\u{202e}/",
			content: [
				{ type: "content", content: { type: "text", text: "line 1\\x08\nline\t2" } },
				{ type: "diff", path: "/w/a\u200b.txt", oldText: null, newText: "new\\x1b[8m\n" },
			],
		});
	});

	it("spells message chunks and plan entries; an update with no text a person reads is left as it is", () => {
		expect(shownUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi\u001b]52;c;eA==\u0007" } })).toEqual({
			sessionUpdate: "agent_message_chunk",
			content: { type: "text", text: "hi\\x1b]52;c;eA==\\x07" },
		});
		expect(shownUpdate({ sessionUpdate: "plan", entries: [{ content: "step\u200b\none", priority: "medium", status: "pending" }] })).toEqual({
			sessionUpdate: "plan",
			entries: [{ content: "step\\u{200b}\\x0aone", priority: "medium", status: "pending" }],
		});
		const mode: SessionUpdate = { sessionUpdate: "current_mode_update", currentModeId: "plan" };
		expect(shownUpdate(mode)).toBe(mode);
	});
});

describe("shownElicitation", () => {
	it("spells the message and the form's titles and descriptions; field names, types and values stay data", () => {
		const params = {
			sessionId: "s",
			mode: "form" as const,
			message: "MCP server x asks: your\u202e name\nplease",
			requestedSchema: { type: "object", properties: { title: { type: "string", title: "Name\u200b", description: "who\u001b]0;t\u0007" }, color: { type: "string", enum: ["r\u200b"], enumNames: ["Red\u202e"] } } },
		};
		expect(shownElicitation(params)).toEqual({
			...params,
			message: "MCP server x asks: your\\u{202e} name\nplease",
			requestedSchema: { type: "object", properties: { title: { type: "string", title: "Name\\u{200b}", description: "who\\x1b]0;t\\x07" }, color: { type: "string", enum: ["r\u200b"], enumNames: ["Red\\u{202e}"] } } },
		});
	});
});
