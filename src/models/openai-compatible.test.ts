import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAICompatibleModel } from "./openai-compatible.js";
import { ModelError, type ModelRequest } from "./provider.js";
import { type FakeOpenAIResponse, type FakeOpenAIServer, startFakeOpenAI } from "./test-support/openai-fake-server.js";

const live = () => new AbortController().signal;
let server: FakeOpenAIServer | undefined;

afterEach(async () => {
	await server?.close();
	server = undefined;
});

async function modelFor(script: FakeOpenAIResponse[], apiKey?: string): Promise<OpenAICompatibleModel> {
	server = await startFakeOpenAI(script);
	// Retrying has its own tests (openai-compatible.retry.test.ts); here a failure shows at once.
	return new OpenAICompatibleModel({ spec: "openai:fake-model", baseUrl: server.url, model: "fake-model", apiKey, retry: { maxRetries: 0 } });
}

function ask(content: string, onTextDelta?: (delta: string) => void): ModelRequest {
	return { messages: [{ role: "user", content }], tools: [], onTextDelta };
}

async function modelError(promise: Promise<unknown>): Promise<string> {
	const error = await promise.catch((e: unknown) => e);
	expect(error).toBeInstanceOf(ModelError);
	const message = (error as ModelError).message;
	expect(message).not.toContain("\n");
	return message;
}

describe("OpenAICompatibleModel streaming", () => {
	it("joins streamed text and forwards each delta as it arrives", async () => {
		const model = await modelFor([{ text: "Hello there, general Kenobi", usage: { prompt_tokens: 12, completion_tokens: 5 } }]);
		const deltas: string[] = [];
		const response = await model.complete(ask("hi", (delta) => deltas.push(delta)), live());
		expect(response).toEqual({ text: "Hello there, general Kenobi", toolCalls: [], usage: { prompt_tokens: 12, completion_tokens: 5 } });
		expect(deltas).toEqual(["Hello ", "there, ", "general ", "Kenobi"]);
	});

	it("assembles a tool call whose arguments arrive in several fragments", async () => {
		const args = JSON.stringify({ path: "notes/todo.md", content: "buy milk" });
		const model = await modelFor([{ tool_calls: [{ id: "call_a", name: "write_file", arguments: args }] }]);
		const response = await model.complete(ask("write it"), live());
		expect(response.text).toBe("");
		expect(response.toolCalls).toEqual([{ id: "call_a", name: "write_file", arguments: args }]);
		expect(response.usage?.completion_tokens).toBeGreaterThan(0);
	});

	it("keeps two parallel tool calls apart, in index order, with malformed arguments untouched", async () => {
		const model = await modelFor([
			{
				text: "Two things.",
				tool_calls: [
					{ name: "read_file", arguments: '{"path": "a.md"}' },
					{ name: "shell", arguments: '{"command": "ls' },
				],
			},
		]);
		const response = await model.complete(ask("go"), live());
		expect(response.text).toBe("Two things.");
		expect(response.toolCalls).toEqual([
			{ id: "call_fake_0", name: "read_file", arguments: '{"path": "a.md"}' },
			{ id: "call_fake_1", name: "shell", arguments: '{"command": "ls' },
		]);
	});

	it("sends the model name, key, mapped messages and tools the API expects", async () => {
		const model = await modelFor([{ text: "ok" }], "sk-test-123");
		const request: ModelRequest = {
			messages: [
				{ role: "system", content: "be brief" },
				{ role: "user", content: "list files" },
				{ role: "assistant", content: "", tool_calls: [{ id: "c1", name: "list_dir", arguments: '{"path":"."}' }] },
				{ role: "tool", tool_call_id: "c1", name: "list_dir", content: "a.md\nb.md" },
				{ role: "assistant", content: "Two files." },
			],
			tools: [{ name: "list_dir", description: "List a directory", parameters: { type: "object", properties: { path: { type: "string" } } } }],
		};
		await model.complete(request, live());
		const received = server?.requests[0];
		expect(received?.method).toBe("POST");
		expect(received?.path).toBe("/v1/chat/completions");
		expect(received?.headers.authorization).toBe("Bearer sk-test-123");
		expect(received?.body).toEqual({
			model: "fake-model",
			stream: true,
			stream_options: { include_usage: true },
			messages: [
				{ role: "system", content: "be brief" },
				{ role: "user", content: "list files" },
				{ role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "list_dir", arguments: '{"path":"."}' } }] },
				{ role: "tool", tool_call_id: "c1", content: "a.md\nb.md" },
				{ role: "assistant", content: "Two files." },
			],
			tools: [
				{
					type: "function",
					function: { name: "list_dir", description: "List a directory", parameters: { type: "object", properties: { path: { type: "string" } } } },
				},
			],
		});
	});

	it("sends no Authorization header and no tools list when there is neither", async () => {
		const model = await modelFor([{ text: "ok" }]);
		await model.complete(ask("hi"), live());
		const received = server?.requests[0];
		expect(received?.headers.authorization).toBeUndefined();
		expect(received?.body).not.toHaveProperty("tools");
	});

	it("rejects with an AbortError when aborted mid-stream", async () => {
		const model = await modelFor([{ text: "first second third", stall: true }]);
		const controller = new AbortController();
		const deltas: string[] = [];
		const pending = model.complete(
			ask("hi", (delta) => {
				deltas.push(delta);
				controller.abort();
			}),
			controller.signal,
		);
		await expect(pending).rejects.toMatchObject({ name: "AbortError" });
		expect(deltas).toEqual(["first "]);
	});

	it("rejects at once when the signal fired before the call, without sending anything", async () => {
		const model = await modelFor([{ text: "unused" }]);
		const controller = new AbortController();
		controller.abort();
		await expect(model.complete(ask("hi"), controller.signal)).rejects.toMatchObject({ name: "AbortError" });
		expect(server?.requests).toEqual([]);
	});
});

describe("OpenAICompatibleModel other responses", () => {
	it("reads a plain JSON completion when the server ignores stream: true", async () => {
		const model = await modelFor([
			{ json: true, text: "Sure.", tool_calls: [{ id: "c9", name: "read_file", arguments: '{"path":"x"}' }], usage: { prompt_tokens: 3, completion_tokens: 4 } },
		]);
		const deltas: string[] = [];
		const response = await model.complete(ask("hi", (delta) => deltas.push(delta)), live());
		expect(response).toEqual({
			text: "Sure.",
			toolCalls: [{ id: "c9", name: "read_file", arguments: '{"path":"x"}' }],
			usage: { prompt_tokens: 3, completion_tokens: 4 },
		});
		expect(deltas).toEqual(["Sure."]);
	});

	it("reads a stream the server mislabelled as text/plain", async () => {
		const chunk = { choices: [{ index: 0, delta: { content: "plain" } }] };
		const model = await modelFor([{ raw: { contentType: "text/plain", body: `data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n` } }]);
		expect((await model.complete(ask("hi"), live())).text).toBe("plain");
	});

	it("accepts tool-call fragments without an index, as some servers send them", async () => {
		const chunks = [
			{ choices: [{ index: 0, delta: { tool_calls: [{ id: "a", function: { name: "one", arguments: "{}" } }] } }] },
			{ choices: [{ index: 0, delta: { tool_calls: [{ id: "b", function: { name: "two", arguments: { k: 1 } } }] } }] },
		];
		const body = `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`;
		const model = await modelFor([{ raw: { contentType: "text/event-stream", body } }]);
		expect((await model.complete(ask("hi"), live())).toolCalls).toEqual([
			{ id: "a", name: "one", arguments: "{}" },
			{ id: "b", name: "two", arguments: { k: 1 } },
		]);
	});

	it("turns HTTP 500 with an error body into a one-line ModelError carrying the server's message", async () => {
		const model = await modelFor([{ error: { status: 500, message: "model crashed:\n  out of memory" } }]);
		const message = await modelError(model.complete(ask("hi"), live()));
		expect(message).toBe(`model endpoint ${server?.url} answered HTTP 500 Internal Server Error: model crashed: out of memory`);
	});

	it("adds a hint for 401 and 404", async () => {
		const model = await modelFor([
			{ error: { status: 401, message: "Incorrect API key provided" } },
			{ error: { status: 404, message: 'model "nope" not found, try pulling it first' } },
		]);
		expect(await modelError(model.complete(ask("hi"), live()))).toMatch(/HTTP 401 Unauthorized: Incorrect API key provided — check the API key$/);
		expect(await modelError(model.complete(ask("hi"), live()))).toMatch(/HTTP 404 Not Found: model "nope" not found, try pulling it first — check the model name/);
	});

	it("reports a garbled stream chunk", async () => {
		const model = await modelFor([{ raw: { contentType: "text/event-stream", body: "data: {not json\n\n" } }]);
		expect(await modelError(model.complete(ask("hi"), live()))).toMatch(/sent a garbled stream chunk: \{not json$/);
	});

	it("reports an error the server sends mid-stream", async () => {
		const body = `data: ${JSON.stringify({ error: { message: "context length exceeded" } })}\n\n`;
		const model = await modelFor([{ raw: { contentType: "text/event-stream", body } }]);
		expect(await modelError(model.complete(ask("hi"), live()))).toMatch(/reported an error mid-stream: context length exceeded$/);
	});

	it("reports a response that is neither a stream nor a completion", async () => {
		const model = await modelFor([
			{ raw: { contentType: "text/html", body: "<html>\n<body>Welcome to nginx!</body>\n</html>" } },
			{ raw: { contentType: "application/json", body: '{"hello": "world"}' } },
			{ raw: { contentType: "text/event-stream", body: "" } },
		]);
		expect(await modelError(model.complete(ask("hi"), live()))).toMatch(/returned an unexpected response \(text\/html\): <html> <body>Welcome/);
		expect(await modelError(model.complete(ask("hi"), live()))).toMatch(/no choices\[0\]\.message/);
		expect(await modelError(model.complete(ask("hi"), live()))).toMatch(/sent an empty event stream$/);
	});

	it("reports a closed port as an unreachable endpoint", async () => {
		const probe = createServer();
		await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
		const { port } = probe.address() as AddressInfo;
		await new Promise<void>((resolve) => probe.close(() => resolve()));
		const baseUrl = `http://127.0.0.1:${port}/v1`;
		const model = new OpenAICompatibleModel({ spec: "ollama:x", baseUrl, model: "x" });
		expect(await modelError(model.complete(ask("hi"), live()))).toBe(
			`cannot reach model endpoint ${baseUrl} (connection refused) — is the server running?`,
		);
	});

	it("reports a connection the server drops mid-stream", async () => {
		const dropper = createServer((_req, res) => {
			res.writeHead(200, { "content-type": "text/event-stream" });
			res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "par" } }] })}\n\n`);
			setTimeout(() => res.socket?.destroy(), 20);
		});
		await new Promise<void>((resolve) => dropper.listen(0, "127.0.0.1", resolve));
		const { port } = dropper.address() as AddressInfo;
		try {
			const model = new OpenAICompatibleModel({ spec: "ollama:x", baseUrl: `http://127.0.0.1:${port}/v1`, model: "x", retry: { maxRetries: 0 } });
			expect(await modelError(model.complete(ask("hi"), live()))).toMatch(/broke off the response stream/);
		} finally {
			dropper.closeAllConnections();
			await new Promise<void>((resolve) => dropper.close(() => resolve()));
		}
	});

	it("answers HTTP 501 once the fake server's script is exhausted", async () => {
		const model = await modelFor([{ text: "one" }]);
		await model.complete(ask("hi"), live());
		expect(await modelError(model.complete(ask("again"), live()))).toMatch(/HTTP 501 .*script exhausted after 1 responses/);
	});
});
