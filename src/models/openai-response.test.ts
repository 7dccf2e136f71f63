import { describe, expect, it } from "vitest";
import { CompletionStream, decodeCompletion, errorText } from "./openai-response.js";
import { ModelError } from "./provider.js";

const chunk = (delta: Record<string, unknown>) => JSON.stringify({ choices: [{ index: 0, delta }] });

describe("CompletionStream", () => {
	it("joins fragments per index even when two calls interleave", () => {
		const stream = new CompletionStream("model endpoint test");
		stream.addData(chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "read_", arguments: '{"pa' } }] }));
		stream.addData(chunk({ tool_calls: [{ index: 1, id: "b", function: { name: "shell", arguments: "{" } }] }));
		stream.addData(chunk({ tool_calls: [{ index: 0, function: { name: "file", arguments: 'th":1}' } }] }));
		stream.addData(chunk({ tool_calls: [{ index: 1, function: { arguments: "}" } }] }));
		expect(stream.result().toolCalls).toEqual([
			{ id: "a", name: "read_file", arguments: '{"path":1}' },
			{ id: "b", name: "shell", arguments: "{}" },
		]);
	});

	it("does not double a tool name that a server repeats in every chunk", () => {
		const stream = new CompletionStream("model endpoint test");
		stream.addData(chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "ls", arguments: "{" } }] }));
		stream.addData(chunk({ tool_calls: [{ index: 0, function: { name: "ls", arguments: "}" } }] }));
		expect(stream.result().toolCalls).toEqual([{ id: "a", name: "ls", arguments: "{}" }]);
	});

	it("keeps the latest usage and leaves it out when none came", () => {
		const without = new CompletionStream("model endpoint test");
		without.addData(chunk({ content: "x" }));
		expect(without.result()).toEqual({ text: "x", toolCalls: [] });
		const withUsage = new CompletionStream("model endpoint test");
		withUsage.addData(JSON.stringify({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 } }));
		expect(withUsage.result().usage).toEqual({ prompt_tokens: 7, completion_tokens: 2 });
	});

	it("names its source in errors", () => {
		const stream = new CompletionStream("model endpoint http://x/v1");
		expect(() => stream.addData("[1,2]")).toThrow(new ModelError("model endpoint http://x/v1 sent a garbled stream chunk: [1,2]"));
	});
});

describe("decodeCompletion", () => {
	it("treats null content as empty text", () => {
		const body = { choices: [{ message: { role: "assistant", content: null, tool_calls: [{ id: "c", function: { name: "f", arguments: "{}" } }] } }] };
		expect(decodeCompletion(body, "src")).toEqual({ text: "", toolCalls: [{ id: "c", name: "f", arguments: "{}" }] });
	});

	it("reports an error body served with status 200", () => {
		expect(() => decodeCompletion({ error: "model not loaded" }, "src")).toThrow(new ModelError("src reported an error: model not loaded"));
	});
});

describe("errorText", () => {
	it("reads OpenAI, Ollama and FastAPI error shapes", () => {
		expect(errorText({ message: "bad key", type: "invalid_request_error" })).toBe("bad key");
		expect(errorText("model 'x' not found")).toBe("model 'x' not found");
		expect(errorText({ detail: "Not Found" })).toBe("Not Found");
		expect(errorText({ code: 3 })).toBeUndefined();
	});
});
