import { isLoopbackUrl } from "./endpoint-url.js";
import { AbortError } from "./abort-error.js";
import { oneLine } from "./one-line.js";
import { toOpenAIMessage, toOpenAITool } from "./openai-messages.js";
import { CompletionStream, decodeCompletion, errorText } from "./openai-response.js";
import { ModelError, type ModelLocality, type ModelProvider, type ModelRequest, type ModelResponse } from "./provider.js";
import { retryAfterMs } from "./retry/retry-after.js";
import { TransientModelError, type RetrySettings, retrySettings, withRetries } from "./retry/retry-policy.js";
import { RETRYABLE_NETWORK_CODE, networkCode, retryableStatus } from "./retry/retry-table.js";
import { SseDecoder } from "./sse-decoder.js";

export interface OpenAICompatibleOptions {
	/** The spec it was made from, e.g. `ollama:qwen2.5-coder`. */
	spec: string;
	/** Base URL up to and including the API version, e.g. `http://127.0.0.1:11434/v1`. */
	baseUrl: string;
	model: string;
	/** Sent as a Bearer token when present. */
	apiKey?: string;
	/** The model's context window in tokens, from a profile. */
	contextWindow?: number;
	/** Overrides where the spec's host is loopback or remote: a profile may only say `remote` of a loopback URL. */
	locality?: ModelLocality;
	/** Retry count, backoff, and (for tests) the clock. */
	retry?: Partial<RetrySettings>;
}

/** Any server that speaks OpenAI's /chat/completions with tools: OpenAI, Ollama, LM Studio, vLLM, llama.cpp. */
export class OpenAICompatibleModel implements ModelProvider {
	readonly spec: string;
	readonly baseUrl: string;
	readonly locality: ModelLocality;
	readonly model: string;
	readonly contextWindow?: number;
	private readonly apiKey: string | undefined;
	private readonly retry: RetrySettings;

	constructor(options: OpenAICompatibleOptions) {
		this.spec = options.spec;
		this.baseUrl = options.baseUrl.replace(/\/+$/, "");
		this.locality = isLoopbackUrl(this.baseUrl) ? (options.locality ?? "loopback") : "remote";
		this.model = options.model;
		this.apiKey = options.apiKey;
		if (options.contextWindow !== undefined) this.contextWindow = options.contextWindow;
		this.retry = retrySettings(options.retry);
	}

	async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		if (signal.aborted) throw new AbortError();
		return withRetries(() => this.attempt(request, signal), this.retry, signal, request.onRetry);
	}

	private async attempt(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		const response = await this.post(request, signal);
		if (!response.ok) throw await this.httpError(response);
		const contentType = response.headers.get("content-type") ?? "";
		// Text already shown cannot be taken back: a stream cut after the first delta is not retried.
		let forwarded = false;
		const tracked: ModelRequest = {
			...request,
			onTextDelta: (delta) => {
				forwarded = true;
				request.onTextDelta?.(delta);
			},
		};
		try {
			if (contentType.includes("text/event-stream") && response.body !== null) {
				return await this.readStream(response.body, tracked, signal);
			}
			return await this.readWhole(response, contentType, tracked, signal);
		} catch (error) {
			if (forwarded && error instanceof TransientModelError) throw new ModelError(error.message);
			throw error;
		}
	}

	private get source(): string {
		return `model endpoint ${this.baseUrl}`;
	}

	private async post(request: ModelRequest, signal: AbortSignal): Promise<Response> {
		const body: Record<string, unknown> = {
			model: this.model,
			messages: request.messages.map(toOpenAIMessage),
			stream: true,
			stream_options: { include_usage: true },
		};
		// Some servers reject an empty tools list rather than treating it as "no tools".
		if (request.tools.length > 0) body.tools = request.tools.map(toOpenAITool);
		const headers: Record<string, string> = {
			"content-type": "application/json",
			accept: "text/event-stream, application/json",
		};
		if (this.apiKey !== undefined && this.apiKey !== "") headers.authorization = `Bearer ${this.apiKey}`;
		try {
			return await fetch(`${this.baseUrl}/chat/completions`, {
				method: "POST",
				headers,
				body: JSON.stringify(body),
				signal,
			});
		} catch (error) {
			if (signal.aborted) throw new AbortError();
			throw connectionError(`cannot reach model endpoint ${this.baseUrl} (${networkProblem(error)}) — is the server running?`, error);
		}
	}

	private async httpError(response: Response): Promise<ModelError> {
		const body = await response.text().catch(() => "");
		let detail: string | undefined;
		try {
			const parsed: unknown = JSON.parse(body);
			detail = errorText(typeof parsed === "object" && parsed !== null && "error" in parsed ? parsed.error : parsed);
		} catch {
			detail = body.trim() === "" ? undefined : oneLine(body.replace(/<[^>]*>/g, " "), 160);
		}
		const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
		const hint = httpHint(response.status);
		const message = oneLine(`${this.source} answered ${status}${detail ? `: ${detail}` : ""}${hint ? ` — ${hint}` : ""}`, 400);
		const transient = retryableStatus(response.status);
		if (transient === undefined) return new ModelError(message);
		return new TransientModelError(message, `HTTP ${response.status} ${transient}`, retryAfterMs(response.headers, this.retry.now));
	}

	private async readStream(body: ReadableStream<Uint8Array>, request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		const reader = body.getReader();
		const decoder = new TextDecoder();
		const sse = new SseDecoder();
		const completion = new CompletionStream(this.source, request.onTextDelta);
		let done = false;
		try {
			while (!done) {
				const { done: ended, value } = await reader.read();
				const events = ended ? sse.push(decoder.decode()).concat(sse.finish()) : sse.push(decoder.decode(value, { stream: true }));
				for (const data of events) {
					if (data === "[DONE]") {
						done = true;
						break;
					}
					completion.addData(data);
				}
				if (ended) break;
			}
		} catch (error) {
			if (signal.aborted) throw new AbortError();
			if (error instanceof ModelError) throw error;
			throw connectionError(`${this.source} broke off the response stream (${networkProblem(error)})`, error);
		} finally {
			// Frees the connection when the server keeps sending after [DONE] or we stopped early.
			await reader.cancel().catch(() => undefined);
		}
		if (!done && !completion.receivedAnything) {
			throw new ModelError(`${this.source} sent an empty event stream`);
		}
		return completion.result();
	}

	/** For servers that ignore `stream: true` and answer with one JSON body (or mislabel their stream). */
	private async readWhole(response: Response, contentType: string, request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		let text: string;
		try {
			text = await response.text();
		} catch (error) {
			if (signal.aborted) throw new AbortError();
			throw connectionError(`${this.source} broke off the response (${networkProblem(error)})`, error);
		}
		if (/^\s*(data|:)/.test(text)) return this.readStream(new Blob([text]).stream(), request, signal);
		let body: unknown;
		try {
			body = JSON.parse(text);
		} catch {
			const kind = contentType === "" ? "no content type" : contentType;
			throw new ModelError(`${this.source} returned an unexpected response (${kind}): ${oneLine(text, 80) || "empty body"}`);
		}
		const result = decodeCompletion(body, this.source);
		if (result.text !== "") request.onTextDelta?.(result.text);
		return result;
	}
}

function httpHint(status: number): string | undefined {
	if (status === 401 || status === 403) return "check the API key";
	if (status === 404) return "check the model name and the base URL";
	if (status === 429) return "rate limited; try again later";
	return undefined;
}

/** A connection failure worth another attempt (reset, cut, timed out) is transient; a refused one is not. */
function connectionError(message: string, error: unknown): ModelError {
	const code = networkCode(error);
	const reason = code === undefined ? undefined : RETRYABLE_NETWORK_CODE[code];
	return reason === undefined ? new ModelError(message) : new TransientModelError(message, reason);
}

/** Turns undici's "fetch failed" (whose real reason hides in `cause`) into words a user can act on. */
function networkProblem(error: unknown): string {
	const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
	const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : "";
	const known: Record<string, string> = {
		ECONNREFUSED: "connection refused",
		ECONNRESET: "connection reset",
		ENOTFOUND: "host not found",
		EAI_AGAIN: "host lookup failed",
		ETIMEDOUT: "timed out",
		EHOSTUNREACH: "host unreachable",
		ENETUNREACH: "network unreachable",
		UND_ERR_CONNECT_TIMEOUT: "connect timed out",
		UND_ERR_SOCKET: "connection closed by the server",
	};
	if (known[code] !== undefined) return known[code];
	const message = cause instanceof Error ? cause.message : String(cause);
	return oneLine(code !== "" ? `${code}: ${message}` : message, 120);
}
