import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer. `text` and `tool_calls` alone give a normal streamed completion. */
export interface FakeOpenAIResponse {
	text?: string;
	/** `arguments` is sent verbatim (in several fragments), so it may be malformed JSON on purpose. */
	tool_calls?: { name: string; arguments: string; id?: string }[];
	/** Reported usage; a rough count of characters is used when absent. */
	usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
	/** Answer with one `application/json` completion, as servers that ignore `stream: true` do. */
	json?: boolean;
	/** Answer with this HTTP status and an OpenAI-style error body instead of a completion. */
	error?: { status: number; message: string; headers?: Record<string, string> };
	/** Destroy the connection without answering, as a reset or a crashed proxy does. */
	reset?: boolean;
	/** Send the first text chunk, then keep the connection open without finishing. */
	stall?: boolean;
	/** Send exactly this body, for garbled or unusual responses. */
	raw?: { contentType: string; body: string };
}

export interface FakeOpenAIRequest {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	/** The decoded JSON body, or the raw text when it was not JSON. */
	body: unknown;
}

export interface FakeOpenAIServer {
	/** Base URL including `/v1`, ready for OpenAICompatibleModel or OPENAI_BASE_URL. */
	url: string;
	requests: FakeOpenAIRequest[];
	close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that speaks the chat-completions SSE protocol: each POST to
 * /v1/chat/completions gets the next scripted response; once the script runs out it answers HTTP 501.
 */
export async function startFakeOpenAI(script: FakeOpenAIResponse[]): Promise<FakeOpenAIServer> {
	const requests: FakeOpenAIRequest[] = [];
	let next = 0;
	const server = createServer((req, res) => {
		const parts: Buffer[] = [];
		req.on("data", (part: Buffer) => parts.push(part));
		req.on("end", () => {
			const text = Buffer.concat(parts).toString("utf8");
			const body = decodeBody(text);
			requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
			if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
				sendError(res, 404, `fake OpenAI server: no route for ${req.method} ${req.url}`);
				return;
			}
			const answer = script[next];
			next += 1;
			if (answer === undefined) {
				// 501, not 500: a server error would be retried, and a test's mistake should fail at once.
				sendError(res, 501, `fake OpenAI server: script exhausted after ${script.length} responses`);
				return;
			}
			respond(res, answer, body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/v1`,
		requests,
		close: () =>
			new Promise<void>((resolve, reject) => {
				// Stalled responses would otherwise keep close() waiting forever.
				server.closeAllConnections();
				server.close((error) => (error ? reject(error) : resolve()));
			}),
	};
}

function respond(res: ServerResponse, answer: FakeOpenAIResponse, request: unknown): void {
	if (answer.reset === true) {
		res.socket?.destroy();
		return;
	}
	if (answer.error !== undefined) {
		sendError(res, answer.error.status, answer.error.message, answer.error.headers);
		return;
	}
	if (answer.raw !== undefined) {
		res.writeHead(200, { "content-type": answer.raw.contentType });
		res.end(answer.raw.body);
		return;
	}
	const model = field(request, "model") ?? "fake-model";
	const usage = answer.usage ?? estimateUsage(request, answer);
	const calls = (answer.tool_calls ?? []).map((call, index) => ({ ...call, id: call.id ?? `call_fake_${index}` }));
	if (answer.json === true) {
		const message: Record<string, unknown> = { role: "assistant", content: answer.text ?? null };
		if (calls.length > 0) {
			message.tool_calls = calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }));
		}
		res.writeHead(200, { "content-type": "application/json" });
		res.end(
			JSON.stringify({
				id: "chatcmpl-fake",
				object: "chat.completion",
				model,
				choices: [{ index: 0, message, finish_reason: calls.length > 0 ? "tool_calls" : "stop" }],
				usage,
			}),
		);
		return;
	}
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	const send = (delta: Record<string, unknown>, finish: string | null = null) =>
		res.write(`data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
	send({ role: "assistant", content: "" });
	const pieces = splitText(answer.text ?? "");
	for (const [index, piece] of pieces.entries()) {
		send({ content: piece });
		if (answer.stall === true && index === 0) return;
	}
	if (answer.stall === true) return;
	for (const [index, call] of calls.entries()) {
		send({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
		for (const fragment of splitInThree(call.arguments)) {
			send({ tool_calls: [{ index, function: { arguments: fragment } }] });
		}
	}
	send({}, calls.length > 0 ? "tool_calls" : "stop");
	const streamOptions = field(request, "stream_options");
	if (typeof streamOptions === "object" && streamOptions !== null && "include_usage" in streamOptions && streamOptions.include_usage === true) {
		res.write(`data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", model, choices: [], usage })}\n\n`);
	}
	res.end("data: [DONE]\n\n");
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
	res.writeHead(status, { ...headers, "content-type": "application/json" });
	res.end(JSON.stringify({ error: { message, type: "fake_error" } }));
}

/** Word-sized pieces, so a client sees several text deltas per answer. */
function splitText(text: string): string[] {
	return text.match(/\S+\s*|\s+/g) ?? [];
}

function splitInThree(text: string): string[] {
	const third = Math.ceil(text.length / 3);
	if (third === 0) return [];
	return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)].filter((part) => part !== "");
}

function estimateUsage(request: unknown, answer: FakeOpenAIResponse): { prompt_tokens: number; completion_tokens: number } {
	const prompt = JSON.stringify(field(request, "messages") ?? []).length;
	const completion = (answer.text ?? "").length + JSON.stringify(answer.tool_calls ?? []).length;
	return { prompt_tokens: Math.ceil(prompt / 4), completion_tokens: Math.ceil(completion / 4) };
}

function field(value: unknown, key: string): unknown {
	return typeof value === "object" && value !== null && key in value ? (value as Record<string, unknown>)[key] : undefined;
}

function decodeBody(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}
