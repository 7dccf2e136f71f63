/**
 * Embeddings from an OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, llama.cpp's server,
 * vLLM …): one POST of the texts, one vector back per text in order. The kernel decides whether a
 * text may be sent (src/kernel/kernel-memory.ts); this only speaks the protocol.
 */
import { httpFetch } from "./net-provider.js";

export interface EmbeddingsEndpoint {
	/** The API's base URL, e.g. `http://127.0.0.1:11434/v1`; `/embeddings` is appended. */
	baseUrl: string;
	model: string;
	/** Sent as a bearer token when set. */
	apiKey?: string;
	timeoutMs?: number;
}

/** A response that is not a list of vectors, or a failed request, in one line. */
export class EmbeddingsError extends Error {
	override name = "EmbeddingsError";
}

const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export function embeddingsUrl(baseUrl: string): string {
	return `${baseUrl.replace(/\/+$/, "")}/embeddings`;
}

export async function fetchEmbeddings(endpoint: EmbeddingsEndpoint, texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]> {
	if (texts.length === 0) return [];
	const url = embeddingsUrl(endpoint.baseUrl);
	const headers: Record<string, string> = { "content-type": "application/json" };
	if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
	let response: Awaited<ReturnType<typeof httpFetch>>;
	try {
		response = await httpFetch({
			url,
			method: "POST",
			headers,
			body: JSON.stringify({ model: endpoint.model, input: texts }),
			timeoutMs: endpoint.timeoutMs ?? 30_000,
			maxBytes: MAX_RESPONSE_BYTES,
			signal,
		});
	} catch (err) {
		throw new EmbeddingsError(`POST ${url} failed: ${err instanceof Error ? err.message : String(err)}`);
	}
	if (response.status < 200 || response.status > 299) throw new EmbeddingsError(`POST ${url} answered HTTP ${response.status}: ${response.body.toString("utf8").slice(0, 200).replace(/\s+/g, " ")}`);
	let parsed: unknown;
	try {
		parsed = JSON.parse(response.body.toString("utf8"));
	} catch {
		throw new EmbeddingsError(`POST ${url} answered with a body that is not JSON`);
	}
	const data = (parsed as { data?: unknown }).data;
	if (!Array.isArray(data) || data.length !== texts.length) throw new EmbeddingsError(`POST ${url}: expected data with ${texts.length} embeddings, got ${Array.isArray(data) ? data.length : "none"}`);
	const out: Float32Array[] = new Array(texts.length);
	for (const [i, item] of data.entries()) {
		const { embedding, index } = item as { embedding?: unknown; index?: unknown };
		const at = typeof index === "number" ? index : i;
		if (!Array.isArray(embedding) || embedding.length === 0 || embedding.some((v) => typeof v !== "number") || at < 0 || at >= texts.length) {
			throw new EmbeddingsError(`POST ${url}: data[${i}] is not an embedding (a non-empty list of numbers with an index in range)`);
		}
		out[at] = Float32Array.from(embedding as number[]);
	}
	if (out.some((v) => v === undefined)) throw new EmbeddingsError(`POST ${url}: two embeddings share an index`);
	return out;
}
