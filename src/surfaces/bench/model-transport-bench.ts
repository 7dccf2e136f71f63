/**
 * What Warden's model transport adds, against the same work done bare, on servers this benchmark
 * starts on 127.0.0.1 (so the network is not what is measured):
 *   - one streamed Anthropic answer (text deltas and a tool_use of partial JSON) through
 *     AnthropicModel.complete (history mapping, stream assembly, usage, the retry wrapper) against
 *     iterating the official SDK's stream of the same answer;
 *   - one model download through downloadFile (a redirect read for X-Linked-ETag, a .partial file,
 *     sha256 over the whole file, a rename) against fetch piped into a file.
 */
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import Anthropic from "@anthropic-ai/sdk";
import { AnthropicModel } from "../../models/anthropic.js";
import { downloadFile } from "../../models/download/download-file.js";
import type { ModelTransportReport } from "./bench-types.js";
import { callTiming } from "./call-timing.js";

export interface ModelTransportOptions {
	/** Anthropic answers per round. */
	calls: number;
	/** Bytes of the downloaded file. */
	downloadBytes: number;
	rounds: number;
	warmupRounds: number;
	/** A fresh directory the downloads land in; the caller removes it. */
	dir: string;
	onProgress: (line: string) => void;
}

/** Forty text deltas and a tool call in twelve fragments: a typical tool-calling answer. */
function messagesStream(): string {
	const events: string[] = [];
	const send = (type: string, data: Record<string, unknown>) => events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
	send("message_start", { message: { id: "msg_bench", type: "message", role: "assistant", model: "bench", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1200, output_tokens: 1, cache_read_input_tokens: 900, cache_creation_input_tokens: 0 } } });
	send("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
	for (let i = 0; i < 40; i++) send("content_block_delta", { index: 0, delta: { type: "text_delta", text: `word${i} ` } });
	send("content_block_stop", { index: 0 });
	send("content_block_start", { index: 1, content_block: { type: "tool_use", id: "toolu_bench", name: "write_file", input: {} } });
	const input = JSON.stringify({ path: "src/notes/todo.md", content: "x".repeat(600) });
	for (let i = 0; i < 12; i++) send("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: input.slice((i * input.length) / 12, ((i + 1) * input.length) / 12) } });
	send("content_block_stop", { index: 1 });
	send("message_delta", { delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 240 } });
	send("message_stop", {});
	return events.join("");
}

async function listen(server: Server): Promise<string> {
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
}

export async function benchModelTransport(options: ModelTransportOptions): Promise<ModelTransportReport> {
	const stream = messagesStream();
	const messages = createServer((req, res) => {
		req.resume();
		req.on("end", () => {
			res.writeHead(200, { "content-type": "text/event-stream" });
			res.end(stream);
		});
	});
	const file = randomBytes(options.downloadBytes);
	const sha = createHash("sha256").update(file).digest("hex");
	const files = createServer((req, res) => {
		if (req.url === "/model.gguf") {
			res.writeHead(302, { location: "/cdn/model.gguf", "x-linked-etag": `"${sha}"` });
			res.end();
			return;
		}
		res.writeHead(200, { "content-length": String(file.length) });
		res.end(file);
	});
	const messagesUrl = await listen(messages);
	const filesUrl = await listen(files);
	try {
		const model = new AnthropicModel({ spec: "anthropic:bench", model: "bench", baseUrl: messagesUrl, apiKey: "bench", retry: { maxRetries: 0 } });
		const sdk = new Anthropic({ apiKey: "bench", baseURL: messagesUrl, maxRetries: 0 });
		const history = [
			{ role: "system" as const, content: "You are a coding agent." },
			{ role: "user" as const, content: "write the todo file" },
		];
		const tools = [{ name: "write_file", description: "Write a file", parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } } } }];
		const viaWarden = async () => {
			const response = await model.complete({ messages: history, tools, onTextDelta: () => undefined }, new AbortController().signal);
			if (response.toolCalls.length !== 1) throw new Error("the bench answer lost its tool call");
		};
		const viaSdk = async () => {
			const events = await sdk.messages.create({
				model: "bench",
				max_tokens: 8192,
				system: "You are a coding agent.",
				messages: [{ role: "user", content: "write the todo file" }],
				tools: [{ name: "write_file", description: "Write a file", input_schema: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } } } }],
				stream: true,
			});
			let json = "";
			for await (const event of events) if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") json += event.delta.partial_json;
			JSON.parse(json);
		};
		let n = 0;
		const viaDownloader = async () => {
			const dest = join(options.dir, `warden-${n++}.gguf`);
			await downloadFile({ url: `${filesUrl}/model.gguf`, dest });
			rmSync(dest);
		};
		const viaFetch = async () => {
			const dest = join(options.dir, `fetch-${n++}.gguf`);
			const response = await fetch(`${filesUrl}/cdn/model.gguf`);
			if (response.body === null) throw new Error("empty body");
			await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), createWriteStream(dest));
			rmSync(dest);
		};
		const timed = async (work: () => Promise<void>, times: number) => {
			const start = performance.now();
			for (let i = 0; i < times; i++) await work();
			return ((performance.now() - start) * 1000) / times;
		};
		const samples = { warden: [] as number[], sdk: [] as number[], downloader: [] as number[], fetch: [] as number[] };
		for (let round = 0; round < options.warmupRounds + options.rounds; round++) {
			const measured = round >= options.warmupRounds;
			// Alternating which goes first keeps a warming cache from favouring one side.
			const pair = round % 2 === 0 ? [viaSdk, viaWarden] : [viaWarden, viaSdk];
			const a = await timed(pair[0]!, options.calls);
			const b = await timed(pair[1]!, options.calls);
			const d = await timed(viaDownloader, 1);
			const f = await timed(viaFetch, 1);
			if (!measured) continue;
			samples.sdk.push(round % 2 === 0 ? a : b);
			samples.warden.push(round % 2 === 0 ? b : a);
			samples.downloader.push(d);
			samples.fetch.push(f);
			options.onProgress(`model transport: round ${round - options.warmupRounds + 1} of ${options.rounds}`);
		}
		const anthropic = { sdk: callTiming(samples.sdk), warden: callTiming(samples.warden) };
		const download = { fetch: callTiming(samples.fetch), downloader: callTiming(samples.downloader) };
		return {
			calls: options.calls,
			downloadBytes: options.downloadBytes,
			rounds: options.rounds,
			warmupRounds: options.warmupRounds,
			anthropic: { ...anthropic, ratio: anthropic.warden.medianUs / anthropic.sdk.medianUs },
			download: { ...download, ratio: download.downloader.medianUs / download.fetch.medianUs, mibPerSecond: options.downloadBytes / 1_048_576 / (download.downloader.medianUs / 1e6) },
		};
	} finally {
		await close(messages);
		await close(files);
	}
}

/** A directory for the downloads, made under `tempDir`. */
export function transportDir(tempDir: string): string {
	return mkdtempSync(join(tempDir, "warden-bench-transport-"));
}
