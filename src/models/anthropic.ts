/**
 * `anthropic:<model>`: Claude through the official SDK's Messages API, streamed. The SDK's own
 * retries are off: Warden retries (retry/retry-policy.ts) so that each attempt is an event.
 */
import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import { AbortError } from "./abort-error.js";
import { toAnthropicRequest, toAnthropicTool } from "./anthropic-messages.js";
import { AnthropicStream } from "./anthropic-stream.js";
import { isLoopbackUrl } from "./endpoint-url.js";
import { oneLine } from "./one-line.js";
import { ModelError, type ModelLocality, type ModelProvider, type ModelRequest, type ModelResponse } from "./provider.js";
import { retryAfterMs } from "./retry/retry-after.js";
import { type RetrySettings, retrySettings, TransientModelError, withRetries } from "./retry/retry-policy.js";
import { networkCode, RETRYABLE_NETWORK_CODE, retryableStatus } from "./retry/retry-table.js";

export { ANTHROPIC_DEFAULT_BASE_URL } from "./anthropic-endpoint.js";
/** The API requires a cap on the answer; this one is above what a tool-calling turn needs. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

export interface AnthropicOptions {
	spec: string;
	model: string;
	/** Without the `/v1`, as the SDK and ANTHROPIC_BASE_URL take it. */
	baseUrl: string;
	apiKey?: string;
	maxTokens?: number;
	contextWindow?: number;
	/** A profile may only say `remote` of a loopback URL. */
	locality?: ModelLocality;
	retry?: Partial<RetrySettings>;
}

/** Error types the API sends in a stream's `error` event that pass with time. */
const TRANSIENT_STREAM_ERRORS: Readonly<Record<string, string>> = {
	overloaded_error: "overloaded",
	api_error: "server error",
	rate_limit_error: "rate limited",
};

export class AnthropicModel implements ModelProvider {
	readonly spec: string;
	readonly locality: ModelLocality;
	readonly contextWindow?: number;
	readonly baseUrl: string;
	private readonly client: Anthropic;
	private readonly model: string;
	private readonly maxTokens: number;
	private readonly retry: RetrySettings;

	constructor(options: AnthropicOptions) {
		this.spec = options.spec;
		this.baseUrl = options.baseUrl.replace(/\/+$/, "");
		this.locality = isLoopbackUrl(this.baseUrl) ? (options.locality ?? "loopback") : "remote";
		if (options.contextWindow !== undefined) this.contextWindow = options.contextWindow;
		this.model = options.model;
		this.maxTokens = options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
		this.retry = retrySettings(options.retry);
		// A loopback server gets no real key; naming one keeps the SDK from searching disk profiles for credentials.
		this.client = new Anthropic({ apiKey: options.apiKey ?? "local", baseURL: this.baseUrl, maxRetries: 0 });
	}

	async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		if (signal.aborted) throw new AbortError();
		return withRetries(() => this.attempt(request, signal), this.retry, signal, request.onRetry);
	}

	private get source(): string {
		return `Anthropic endpoint ${this.baseUrl}`;
	}

	private async attempt(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		const { system, messages } = toAnthropicRequest(request.messages);
		const params: MessageCreateParamsStreaming = { model: this.model, max_tokens: this.maxTokens, messages, stream: true };
		if (system !== undefined) params.system = system;
		if (request.tools.length > 0) params.tools = request.tools.map(toAnthropicTool);
		let forwarded = false;
		const stream = new AnthropicStream(this.source, (delta) => {
			forwarded = true;
			request.onTextDelta?.(delta);
		});
		try {
			const events = await this.client.messages.create(params, { signal });
			for await (const event of events) stream.add(event);
		} catch (error) {
			if (signal.aborted || error instanceof APIUserAbortError) throw new AbortError();
			const failure = this.failure(error);
			// Text already shown cannot be taken back: a stream that broke after it is not retried.
			if (forwarded && failure instanceof TransientModelError) throw new ModelError(failure.message);
			throw failure;
		}
		if (!stream.receivedAnything) throw new ModelError(`${this.source} sent an empty event stream`);
		return stream.result();
	}

	private failure(error: unknown): ModelError {
		if (error instanceof ModelError) return error;
		if (error instanceof APIConnectionError || !(error instanceof APIError)) {
			const code = networkCode(error);
			const reason = code === undefined ? undefined : RETRYABLE_NETWORK_CODE[code];
			const detail = reason ?? (code === "ECONNREFUSED" ? "connection refused" : oneLine(error instanceof Error ? error.message : String(error), 120));
			const message = `cannot reach ${this.source} (${detail})`;
			return reason === undefined ? new ModelError(`${message} — is the server running?`) : new TransientModelError(message, reason);
		}
		const detail = error.apiMessage ?? errorMessage(error.error) ?? oneLine(error.message, 160);
		if (error.status === undefined) {
			// An `error` event inside the stream: the HTTP status was 200.
			const type = error.type ?? errorType(error.error);
			const message = oneLine(`${this.source} reported an error mid-stream: ${detail}`, 400);
			const transient = type === undefined ? undefined : TRANSIENT_STREAM_ERRORS[type];
			return transient === undefined ? new ModelError(message) : new TransientModelError(message, transient);
		}
		const hint = error.status === 401 || error.status === 403 ? " — check ANTHROPIC_API_KEY" : error.status === 404 ? " — check the model name" : "";
		const message = oneLine(`${this.source} answered HTTP ${error.status}: ${detail}${hint}`, 400);
		const transient = retryableStatus(error.status);
		if (transient === undefined) return new ModelError(message);
		return new TransientModelError(message, `HTTP ${error.status} ${transient}`, retryAfterMs(error.headers, this.retry.now));
	}
}

function errorMessage(body: unknown): string | undefined {
	const inner = errorObject(body);
	return inner !== undefined && typeof inner.message === "string" ? oneLine(inner.message) : undefined;
}

function errorType(body: unknown): string | undefined {
	const inner = errorObject(body);
	return inner !== undefined && typeof inner.type === "string" ? inner.type : undefined;
}

/** `{type: "error", error: {type, message}}` or the inner object itself. */
function errorObject(body: unknown): Record<string, unknown> | undefined {
	if (typeof body !== "object" || body === null) return undefined;
	const record = body as Record<string, unknown>;
	if (typeof record.error === "object" && record.error !== null) return record.error as Record<string, unknown>;
	return record;
}
