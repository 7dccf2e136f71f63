import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer: text and tool_use blocks, streamed the way the Messages API streams them. */
export interface FakeAnthropicResponse {
	text?: string;
	/** `input` is sent verbatim as `input_json_delta` fragments (three of them), so it may be malformed on purpose. */
	tool_uses?: { name: string; input: string; id?: string }[];
	usage?: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
	/** Defaults to `tool_use` when there are tool uses, else `end_turn`. */
	stop_reason?: string;
	/** Answer with this HTTP status and an API error body. */
	error?: { status: number; type: string; message: string; headers?: Record<string, string> };
	/** After the first text delta, an `error` event, as the API sends when it is overloaded mid-answer. */
	stream_error?: { type: string; message: string };
	/** Destroy the connection without answering. */
	reset?: boolean;
}

export interface FakeAnthropicRequest {
	path: string;
	headers: IncomingHttpHeaders;
	body: Record<string, unknown>;
}

export interface FakeAnthropicServer {
	/** Base URL without `/v1`, as ANTHROPIC_BASE_URL takes it. */
	url: string;
	requests: FakeAnthropicRequest[];
	close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 answering POST /v1/messages from a script; once it runs out, HTTP 400. */
export async function startFakeAnthropic(script: FakeAnthropicResponse[]): Promise<FakeAnthropicServer> {
	const requests: FakeAnthropicRequest[] = [];
	let next = 0;
	const server = createServer((req, res) => {
		const parts: Buffer[] = [];
		req.on("data", (part: Buffer) => parts.push(part));
		req.on("end", () => {
			let body: Record<string, unknown> = {};
			try {
				body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
			} catch {
				sendError(res, 400, "invalid_request_error", "fake Anthropic server: body is not JSON");
				return;
			}
			requests.push({ path: req.url ?? "", headers: req.headers, body });
			if (req.method !== "POST" || req.url !== "/v1/messages") {
				sendError(res, 404, "not_found_error", `fake Anthropic server: no route for ${req.method} ${req.url}`);
				return;
			}
			const answer = script[next];
			next += 1;
			if (answer === undefined) {
				sendError(res, 400, "invalid_request_error", `fake Anthropic server: script exhausted after ${script.length} responses`);
				return;
			}
			respond(res, answer, body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: () =>
			new Promise<void>((resolve, reject) => {
				server.closeAllConnections();
				server.close((error) => (error ? reject(error) : resolve()));
			}),
	};
}

function respond(res: ServerResponse, answer: FakeAnthropicResponse, request: Record<string, unknown>): void {
	if (answer.reset === true) {
		res.socket?.destroy();
		return;
	}
	if (answer.error !== undefined) {
		sendError(res, answer.error.status, answer.error.type, answer.error.message, answer.error.headers);
		return;
	}
	const usage = answer.usage ?? { input_tokens: Math.ceil(JSON.stringify(request.messages ?? []).length / 4), output_tokens: 1 };
	const tools = (answer.tool_uses ?? []).map((tool, index) => ({ ...tool, id: tool.id ?? `toolu_fake_${index}` }));
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
	send("message_start", {
		message: {
			id: "msg_fake",
			type: "message",
			role: "assistant",
			model: request.model ?? "fake",
			content: [],
			stop_reason: null,
			stop_sequence: null,
			usage: { input_tokens: usage.input_tokens, output_tokens: 1, cache_read_input_tokens: usage.cache_read_input_tokens ?? 0, cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0 },
		},
	});
	send("ping", {});
	let index = 0;
	if (answer.text !== undefined && answer.text !== "") {
		send("content_block_start", { index, content_block: { type: "text", text: "" } });
		for (const [n, piece] of (answer.text.match(/\S+\s*|\s+/g) ?? []).entries()) {
			send("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
			if (n === 0 && answer.stream_error !== undefined) {
				send("error", { error: answer.stream_error });
				res.end();
				return;
			}
		}
		send("content_block_stop", { index });
		index += 1;
	} else if (answer.stream_error !== undefined) {
		send("error", { error: answer.stream_error });
		res.end();
		return;
	}
	for (const tool of tools) {
		send("content_block_start", { index, content_block: { type: "tool_use", id: tool.id, name: tool.name, input: {} } });
		const third = Math.ceil(tool.input.length / 3);
		for (const fragment of [tool.input.slice(0, third), tool.input.slice(third, 2 * third), tool.input.slice(2 * third)]) {
			if (fragment !== "") send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: fragment } });
		}
		send("content_block_stop", { index });
		index += 1;
	}
	send("message_delta", { delta: { stop_reason: answer.stop_reason ?? (tools.length > 0 ? "tool_use" : "end_turn"), stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
	send("message_stop", {});
	res.end();
}

function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
	res.writeHead(status, { ...headers, "content-type": "application/json" });
	res.end(JSON.stringify({ type: "error", error: { type, message } }));
}
