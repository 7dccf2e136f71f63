import { afterEach, describe, expect, it } from "vitest";
import { OpenAICompatibleModel } from "./openai-compatible.js";
import { ModelError, type ModelRequest, type ModelRetry } from "./provider.js";
import { recordingRetry } from "./retry/retry-test-clock.js";
import { type FakeOpenAIResponse, type FakeOpenAIServer, startFakeOpenAI } from "./test-support/openai-fake-server.js";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

async function setup(script: FakeOpenAIResponse[], maxRetries = 3) {
	server = await startFakeOpenAI(script);
	const clock = recordingRetry(maxRetries);
	const model = new OpenAICompatibleModel({ spec: "openai:m", baseUrl: server.url, model: "m", retry: clock.settings });
	const retries: ModelRetry[] = [];
	const request: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [], onRetry: (retry) => void retries.push(retry) };
	return { model, request, retries, waits: clock.waits };
}

describe("OpenAICompatibleModel retries", () => {
	it("waits what Retry-After asks after a 429, then answers", async () => {
		const { model, request, retries, waits } = await setup([
			{ error: { status: 429, message: "Rate limit reached", headers: { "retry-after": "2" } } },
			{ text: "fine", usage: { prompt_tokens: 9, completion_tokens: 1 } },
		]);
		const response = await model.complete(request, new AbortController().signal);
		expect(response.text).toBe("fine");
		expect(retries).toEqual([{ attempt: 1, max_attempts: 4, reason: "HTTP 429 rate limited", delay_ms: 2000, retry_after_ms: 2000 }]);
		expect(waits).toEqual([2000]);
		expect(server?.requests).toHaveLength(2);
	});

	it("retries a 503 with backoff, then answers", async () => {
		const { model, request, retries } = await setup([{ error: { status: 503, message: "loading model" } }, { error: { status: 503, message: "loading model" } }, { text: "up" }]);
		expect((await model.complete(request, new AbortController().signal)).text).toBe("up");
		expect(retries.map((r) => [r.attempt, r.reason, r.delay_ms])).toEqual([
			[1, "HTTP 503 service unavailable", 750],
			[2, "HTTP 503 service unavailable", 1500],
		]);
	});

	it("retries a connection reset before any answer", async () => {
		const { model, request, retries } = await setup([{ reset: true }, { text: "back" }]);
		expect((await model.complete(request, new AbortController().signal)).text).toBe("back");
		expect(retries).toHaveLength(1);
		expect(retries[0]?.reason).toMatch(/connection|socket|reset/);
	});

	it("gives up after the configured count with one line", async () => {
		const busy = { error: { status: 503, message: "overloaded" } };
		const { model, request, retries } = await setup([busy, busy, busy], 2);
		const error = await model.complete(request, new AbortController().signal).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ModelError);
		expect((error as Error).message).toBe(`model endpoint ${server?.url} answered HTTP 503 Service Unavailable: overloaded (gave up after 3 attempts)`);
		expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
		expect(server?.requests).toHaveLength(3);
	});

	it("does not retry a lasting failure", async () => {
		const { model, request, retries } = await setup([{ error: { status: 401, message: "bad key" } }, { text: "never" }]);
		await expect(model.complete(request, new AbortController().signal)).rejects.toThrow(/HTTP 401/);
		expect(retries).toEqual([]);
		expect(server?.requests).toHaveLength(1);
	});

	it("reports the cached part of the prompt", async () => {
		const { model, request } = await setup([{ text: "ok", usage: { prompt_tokens: 100, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 64 } } }]);
		expect((await model.complete(request, new AbortController().signal)).usage).toEqual({ prompt_tokens: 100, completion_tokens: 2, cached_tokens: 64 });
	});
});
