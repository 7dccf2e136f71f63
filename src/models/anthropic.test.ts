import { afterEach, describe, expect, it } from "vitest";
import { AnthropicModel } from "./anthropic.js";
import { ModelError, type ModelRequest, type ModelRetry } from "./provider.js";
import { recordingRetry } from "./retry/retry-test-clock.js";
import { type FakeAnthropicResponse, type FakeAnthropicServer, startFakeAnthropic } from "./test-support/anthropic-fake-server.js";

let server: FakeAnthropicServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

async function setup(script: FakeAnthropicResponse[], maxRetries = 0, apiKey = "sk-ant-test") {
	server = await startFakeAnthropic(script);
	const clock = recordingRetry(maxRetries);
	const model = new AnthropicModel({ spec: "anthropic:claude-test", model: "claude-test", baseUrl: server.url, apiKey, retry: clock.settings });
	return { model, waits: clock.waits };
}

const live = () => new AbortController().signal;
const ask = (content: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({ messages: [{ role: "user", content }], tools: [], ...extra });

async function failure(promise: Promise<unknown>): Promise<string> {
	const error = await promise.catch((e: unknown) => e);
	expect(error).toBeInstanceOf(ModelError);
	const message = (error as Error).message;
	expect(message).not.toContain("\n");
	return message;
}

describe("AnthropicModel streaming", () => {
	it("streams text deltas and reports usage with the cache counted in the prompt", async () => {
		const { model } = await setup([{ text: "Hello from Claude", usage: { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 300, cache_creation_input_tokens: 20 } }]);
		const deltas: string[] = [];
		const response = await model.complete(ask("hi", { onTextDelta: (d) => deltas.push(d) }), live());
		expect(deltas).toEqual(["Hello ", "from ", "Claude"]);
		expect(response).toEqual({ text: "Hello from Claude", toolCalls: [], usage: { prompt_tokens: 330, completion_tokens: 4, cached_tokens: 300 } });
	});

	it("assembles a tool_use input from partial JSON fragments, beside the text before it", async () => {
		const input = JSON.stringify({ path: "notes/todo.md", content: "buy milk" });
		const { model } = await setup([{ text: "Writing it.", tool_uses: [{ id: "toolu_1", name: "write_file", input }, { id: "toolu_2", name: "list_dir", input: "" }] }]);
		const response = await model.complete(ask("write it"), live());
		expect(response.text).toBe("Writing it.");
		expect(response.toolCalls).toEqual([
			{ id: "toolu_1", name: "write_file", arguments: input },
			{ id: "toolu_2", name: "list_dir", arguments: "{}" },
		]);
	});

	it("sends the system prompt apart, tool calls as tool_use and results as tool_result, roles alternating", async () => {
		const { model } = await setup([{ text: "ok" }]);
		await model.complete(
			{
				messages: [
					{ role: "system", content: "be brief" },
					{ role: "user", content: "list and read" },
					{
						role: "assistant",
						content: "",
						tool_calls: [
							{ id: "call_1_1_0", provider_id: "toolu_a", name: "list_dir", arguments: '{"path":"."}' },
							{ id: "call_1_1_1", name: "read_file", arguments: "{not json" },
						],
					},
					{ role: "tool", tool_call_id: "call_1_1_0", provider_call_id: "toolu_a", name: "list_dir", content: "a.md" },
					{ role: "tool", tool_call_id: "call_1_1_1", name: "read_file", content: "error: bad arguments" },
					{ role: "user", content: "and then?" },
				],
				tools: [{ name: "list_dir", description: "List a directory", parameters: { type: "object", properties: { path: { type: "string" } } } }],
			},
			live(),
		);
		const sent = server?.requests[0];
		expect(sent?.path).toBe("/v1/messages");
		// SDK 1.x sends the key as a Bearer token.
		expect(sent?.headers.authorization).toBe("Bearer sk-ant-test");
		expect(sent?.headers["anthropic-version"]).toBeDefined();
		expect(sent?.body).toMatchObject({
			model: "claude-test",
			max_tokens: 8192,
			stream: true,
			system: [{ type: "text", text: "be brief", cache_control: { type: "ephemeral" } }],
			tools: [{ name: "list_dir", description: "List a directory", input_schema: { type: "object", properties: { path: { type: "string" } } } }],
			messages: [
				{ role: "user", content: [{ type: "text", text: "list and read" }] },
				{
					role: "assistant",
					content: [
						{ type: "tool_use", id: "toolu_a", name: "list_dir", input: { path: "." } },
						{ type: "tool_use", id: "call_1_1_1", name: "read_file", input: { arguments: "{not json" } },
					],
				},
				{
					role: "user",
					content: [
						{ type: "tool_result", tool_use_id: "toolu_a", content: "a.md" },
						{ type: "tool_result", tool_use_id: "call_1_1_1", content: "error: bad arguments" },
						{ type: "text", text: "and then?", cache_control: { type: "ephemeral" } },
					],
				},
			],
		});
	});

	it("fails in one line on a refusal and on a tool call cut off by max_tokens", async () => {
		const { model } = await setup([
			{ text: "I can't", stop_reason: "refusal" },
			{ tool_uses: [{ name: "write_file", input: '{"path": "a' }], stop_reason: "max_tokens" },
		]);
		expect(await failure(model.complete(ask("x"), live()))).toMatch(/declined to answer \(stop reason: refusal\)$/);
		expect(await failure(model.complete(ask("x"), live()))).toMatch(/ran out of output tokens \(max_tokens\) in the middle of a tool call$/);
	});

	it("keeps a text answer cut by max_tokens", async () => {
		const { model } = await setup([{ text: "a long answer", stop_reason: "max_tokens" }]);
		expect((await model.complete(ask("x"), live())).text).toBe("a long answer");
	});

	it("names the API's message and a hint on HTTP errors", async () => {
		const { model } = await setup([
			{ error: { status: 401, type: "authentication_error", message: "invalid x-api-key" } },
			{ error: { status: 404, type: "not_found_error", message: "model: claude-nope" } },
		]);
		expect(await failure(model.complete(ask("x"), live()))).toBe(`Anthropic endpoint ${server?.url} answered HTTP 401: invalid x-api-key — check ANTHROPIC_API_KEY`);
		expect(await failure(model.complete(ask("x"), live()))).toBe(`Anthropic endpoint ${server?.url} answered HTTP 404: model: claude-nope — check the model name`);
	});

	it("rejects with an AbortError when the signal already fired", async () => {
		const { model } = await setup([{ text: "unused" }]);
		const controller = new AbortController();
		controller.abort();
		await expect(model.complete(ask("x"), controller.signal)).rejects.toMatchObject({ name: "AbortError" });
		expect(server?.requests).toEqual([]);
	});
});

describe("AnthropicModel retries", () => {
	const collect = () => {
		const retries: ModelRetry[] = [];
		return { retries, onRetry: (retry: ModelRetry) => void retries.push(retry) };
	};

	it("honours Retry-After on a 429, then streams the answer", async () => {
		const { model, waits } = await setup([{ error: { status: 429, type: "rate_limit_error", message: "slow down", headers: { "retry-after": "3" } } }, { text: "done" }], 3);
		const { retries, onRetry } = collect();
		expect((await model.complete(ask("x", { onRetry }), live())).text).toBe("done");
		expect(retries).toEqual([{ attempt: 1, max_attempts: 4, reason: "HTTP 429 rate limited", delay_ms: 3000, retry_after_ms: 3000 }]);
		expect(waits).toEqual([3000]);
	});

	it("retries 529 overloaded and a reset connection", async () => {
		const { model } = await setup([{ error: { status: 529, type: "overloaded_error", message: "Overloaded" } }, { reset: true }, { text: "back" }], 3);
		const { retries, onRetry } = collect();
		expect((await model.complete(ask("x", { onRetry }), live())).text).toBe("back");
		expect(retries.map((r) => r.reason)).toEqual(["HTTP 529 overloaded", expect.stringMatching(/connection|socket/)]);
	});

	it("retries an overloaded error event sent before any text", async () => {
		const { model } = await setup([{ stream_error: { type: "overloaded_error", message: "Overloaded" } }, { text: "fine" }], 2);
		const { retries, onRetry } = collect();
		expect((await model.complete(ask("x", { onRetry }), live())).text).toBe("fine");
		expect(retries.map((r) => r.reason)).toEqual(["overloaded"]);
	});

	it("does not retry once text was shown", async () => {
		const { model } = await setup([{ text: "partial answer", stream_error: { type: "overloaded_error", message: "Overloaded" } }, { text: "never" }], 3);
		const { retries, onRetry } = collect();
		expect(await failure(model.complete(ask("x", { onRetry }), live()))).toMatch(/reported an error mid-stream: Overloaded$/);
		expect(retries).toEqual([]);
	});

	it("gives up after the configured count with one line", async () => {
		const busy = { error: { status: 500, type: "api_error", message: "Internal server error" } };
		const { model } = await setup([busy, busy], 1);
		expect(await failure(model.complete(ask("x"), live()))).toBe(`Anthropic endpoint ${server?.url} answered HTTP 500: Internal server error (gave up after 2 attempts)`);
		expect(server?.requests).toHaveLength(2);
	});
});
