import { describe, expect, it } from "vitest";
import { toOpenAIMessage, toOpenAITool } from "./openai-messages.js";

describe("toOpenAIMessage", () => {
	it("leaves tool_calls off an assistant message that has none", () => {
		expect(toOpenAIMessage({ role: "assistant", content: "hi", tool_calls: [] })).toEqual({ role: "assistant", content: "hi" });
	});

	it("wraps assistant tool calls as function calls and drops the tool name from tool results", () => {
		expect(toOpenAIMessage({ role: "assistant", content: "", tool_calls: [{ id: "1", name: "f", arguments: "{}" }] })).toEqual({
			role: "assistant",
			content: "",
			tool_calls: [{ id: "1", type: "function", function: { name: "f", arguments: "{}" } }],
		});
		expect(toOpenAIMessage({ role: "tool", tool_call_id: "1", name: "f", content: "ok" })).toEqual({ role: "tool", tool_call_id: "1", content: "ok" });
	});

	it("sends the provider's own ids back where it issued them", () => {
		expect(toOpenAIMessage({ role: "assistant", content: "", tool_calls: [{ id: "call_1_1_1", provider_id: "aB3dE5fG7", name: "f", arguments: "{}" }] })).toEqual({
			role: "assistant",
			content: "",
			tool_calls: [{ id: "aB3dE5fG7", type: "function", function: { name: "f", arguments: "{}" } }],
		});
		expect(toOpenAIMessage({ role: "tool", tool_call_id: "call_1_1_1", provider_call_id: "aB3dE5fG7", name: "f", content: "ok" })).toEqual({
			role: "tool",
			tool_call_id: "aB3dE5fG7",
			content: "ok",
		});
	});
});

describe("toOpenAITool", () => {
	it("wraps a schema as a function tool", () => {
		const parameters = { type: "object", properties: {} };
		expect(toOpenAITool({ name: "f", description: "d", parameters })).toEqual({ type: "function", function: { name: "f", description: "d", parameters } });
	});
});
