import { describe, expect, it } from "vitest";
import { MemoryAsks } from "../../store/ask-rows.js";
import { askQueueOver } from "./ask-queue.js";

const AT = new Date("2026-01-01T00:00:00.000Z");
const schema = {
	type: "object",
	properties: { name: { type: "string", title: "Name" }, age: { type: "integer", minimum: 0 }, pet: { type: "string", enum: ["cat", "dog"], enumNames: ["Cat", "Dog"] }, site: { type: "string", format: "uri" } },
	required: ["name"],
};

function board() {
	const rows = new MemoryAsks();
	rows.open({ id: "e1", session: "s", call_id: "elicitation:1", kind: "elicitation", body: { tool: "elicitation", resource: "mcp:notes", arguments: {}, reason: "Who?", elicitation: { server: "notes", message: "Who?", requestedSchema: schema } }, created_at: AT.toISOString() });
	rows.open({ id: "a1", session: "s", call_id: "c1", kind: "approval", body: { tool: "write_file", resource: "fs:x", arguments: {}, reason: "asks" }, created_at: AT.toISOString() });
	return { rows, queue: askQueueOver(rows, () => AT) };
}

describe("the ask queue's answers to an MCP request for input", () => {
	it("lists it with the fields read from its schema, required and choices marked", () => {
		const { queue } = board();
		const [ask] = queue.pending();
		expect(ask).toMatchObject({ kind: "elicitation", resource: "mcp:notes", elicitation: { server: "notes", message: "Who?" } });
		expect(ask?.elicitation?.fields).toEqual([
			{ name: "name", type: "string", required: true, about: "Name" },
			{ name: "age", type: "integer", required: false, about: "" },
			{ name: "pet", type: "string", required: false, choices: ["cat", "dog"], about: "" },
			{ name: "site", type: "string", required: false, about: "" },
		]);
	});

	it("checks accepted content against the schema (a server's own keywords and formats do not break it); a refusal leaves the ask open", () => {
		const { rows, queue } = board();
		expect(queue.reply("e1", { action: "accept", content: { age: 3 } }, "console")).toEqual({ ok: false, error: "ask e1: the content does not fit what the server asked for: name is required; nothing was sent, the ask is still open" });
		expect(queue.reply("e1", { action: "accept", content: { name: "Ada", age: 1.5 } }, "console")).toMatchObject({ ok: false, error: expect.stringContaining("age must be integer") });
		expect(queue.reply("e1", { action: "accept", content: { name: "Ada", pet: "fish" } }, "console")).toMatchObject({ ok: false, error: expect.stringContaining("pet must be equal to one of the allowed values") });
		expect(queue.reply("e1", { action: "accept", content: [] as unknown as Record<string, unknown> }, "console")).toMatchObject({ ok: false, error: expect.stringContaining("must be a JSON object") });
		expect(rows.get("e1")?.state).toBe("pending");
		expect(queue.reply("e1", { action: "accept", content: { name: "Ada", pet: "cat", site: "not checked here" } }, "console")).toEqual({ ok: true });
		expect(rows.get("e1")).toMatchObject({ state: "answered", answer: "accept", answered_by: "console", answer_content: { name: "Ada", pet: "cat", site: "not checked here" } });
		expect(queue.reply("e1", { action: "decline" }, "cli")).toEqual({ ok: false, error: "ask e1 was already answered (accept by console)" });
	});

	it("refuses in one line: an unknown action, no answerer, an approval answer to it, and its answers to an approval", () => {
		const { queue } = board();
		expect(queue.reply("e1", { action: "maybe" } as never, "cli")).toEqual({ ok: false, error: 'unknown answer "maybe": use accept, decline, cancel' });
		expect(queue.reply("e1", { action: "decline" }, " ")).toEqual({ ok: false, error: "an answer must name who gave it (answered_by)" });
		expect(queue.answer("e1", "allow_once", "cli")).toEqual({ ok: false, error: "ask e1 is an MCP server's request for input: answer accept, decline, cancel" });
		expect(queue.reply("a1", { action: "decline" }, "cli")).toEqual({ ok: false, error: "ask a1 is an approval, not a request for input: answer allow_once, allow_always, deny, deny_always" });
		expect(queue.reply("nope", { action: "cancel" }, "cli")).toEqual({ ok: false, error: "unknown ask nope" });
	});
});
