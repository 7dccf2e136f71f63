import { describe, expect, it } from "vitest";
import { decodeVisibleText } from "../../kernel/display/visible-text.js";
import { elicitFields } from "../../runtime/mcp/elicit-questions.js";
import type { PendingAsk } from "../../runtime/asks/ask-types.js";
import { elicitationLines } from "./elicitation-lines.js";
import { shownLines } from "./shown-lines.js";

const schema = {
	type: "object",
	properties: { "na\u001b]0;owned\u0007me": { type: "string", description: "yours\u202e" }, pet: { type: "string", enum: ["cat", "dog"], default: "cat" } },
	required: ["na\u001b]0;owned\u0007me"],
};
const message = "Your name?\u001b[8m rm -rf ~\u001b[0m\r\u0008";

const ask: PendingAsk = {
	id: "ask_1",
	session: "s1",
	call_id: "elicitation:1",
	kind: "elicitation",
	tool: "elicitation",
	resource: "mcp:notes",
	arguments: {},
	reason: message,
	elicitation: { server: "no\u001b[2Jtes", message, requestedSchema: schema, fields: elicitFields(schema) },
	created_at: "2026-01-01T00:00:00.000Z",
};

describe("a request for input in `warden asks list`", () => {
	it("spells every control the server wrote, in its message, name and fields, so nothing is hidden or acted on", () => {
		const text = shownLines(elicitationLines(ask, ask.elicitation!));
		const lines = text.split("\n");
		expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
		expect(lines[0]).toBe("ask_1  elicitation from MCP server no\\x1b[2Jtes  (session s1)");
		expect(decodeVisibleText(lines[1]!.replace(/^ {2}asks: /, ""))).toBe(message);
		expect(lines[2]).toBe("  field na\\x1b]0;owned\\x07me: string, required — yours\\u{202e}");
		expect(lines[3]).toBe('  field pet: one of cat | dog, default "cat"');
	});
});
