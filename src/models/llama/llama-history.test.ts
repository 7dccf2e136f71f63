import { describe, expect, it } from "vitest";
import type { Message } from "../provider.js";
import { toChatHistory } from "./llama-history.js";

describe("toChatHistory", () => {
	it("puts the protocol after the system prompt, replies in the protocol, results as user turns, and an open model turn last", () => {
		const messages: Message[] = [
			{ role: "system", content: "be brief" },
			{ role: "user", content: "list" },
			{ role: "assistant", content: "", tool_calls: [{ id: "call_1_1_1", name: "list_dir", arguments: '{"path":"."}' }] },
			{ role: "tool", tool_call_id: "call_1_1_1", name: "list_dir", content: "a.txt" },
			{ role: "assistant", content: "one file" },
			{ role: "user", content: "thanks" },
		];
		const history = toChatHistory(messages, [{ name: "list_dir", description: "List", parameters: { type: "object" } }]);
		expect(history.map((h) => h.type)).toEqual(["system", "user", "model", "user", "model", "user", "model"]);
		expect(history[0]).toMatchObject({ type: "system" });
		expect(history[0]?.type === "system" && history[0].text.startsWith("be brief\n\nReply with exactly one JSON object")).toBe(true);
		expect(history[2]).toEqual({ type: "model", response: ['{"tool": "list_dir", "arguments": {"path":"."}}'] });
		expect(history[3]).toEqual({ type: "user", text: "Result of list_dir (call_1_1_1):\na.txt" });
		expect(history[4]).toEqual({ type: "model", response: ['{"answer":"one file"}'] });
		expect(history[6]).toEqual({ type: "model", response: [] });
	});
});
