/** One interface for every model: scripted, OpenAI-compatible, and later others. */
import type { ModelRetry } from "./provider-retry.js";

export type { ModelRetry };

export interface ToolSchema {
	name: string;
	description: string;
	/** JSON Schema (draft 2020-12) of the arguments object. */
	parameters: Record<string, unknown>;
}

/** A tool call exactly as the model produced it, before the runtime normalizes it. */
export interface RawToolCall {
	/** Provider's id for the call, if it gave one. */
	id?: string;
	name: string;
	/** A JSON string (as most APIs send) or an already-decoded value. May be malformed. */
	arguments: unknown;
}

/**
 * A call in the history. `id` is Warden's (`call_<turn>_<step>_<n>`, the id of its evidence);
 * `provider_id` is the id the provider issued, which goes back to that provider: some validate it
 * (Mistral accepts only its own nine-character ids).
 */
export interface HistoryToolCall {
	id: string;
	provider_id?: string;
	name: string;
	arguments: string;
}

export type Message =
	| { role: "system"; content: string }
	| { role: "user"; content: string }
	| { role: "assistant"; content: string; tool_calls?: HistoryToolCall[] }
	/** `provider_call_id` is the `provider_id` of the call this answers, when the provider issued one. */
	| { role: "tool"; tool_call_id: string; provider_call_id?: string; name: string; content: string };

export interface ModelRequest {
	messages: Message[];
	tools: ToolSchema[];
	/** Streaming text, as it arrives. */
	onTextDelta?: (delta: string) => void;
	/** Told before each retry of a failed attempt (rate limited, server busy, connection cut), before the wait. */
	onRetry?: (retry: ModelRetry) => void | Promise<void>;
	/** `compaction`: the runtime asks for a summary of the turns so far (src/runtime/context/); absent: a turn's step. */
	purpose?: "turn" | "compaction";
}

export interface ModelResponse {
	text: string;
	toolCalls: RawToolCall[];
	/** As the provider reported it; `cached_tokens` is the part of the prompt served from its cache. */
	usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
}

/**
 * Where a provider's requests go: the flow plane treats the model as a sink. `in-process` and
 * `loopback` stay on this host; `remote` (and a provider that does not say) leaves it.
 */
export type ModelLocality = "in-process" | "loopback" | "remote";

export interface ModelProvider {
	/** The spec it was made from, e.g. `scripted:plan.yaml` or `openai:gpt-4o-mini`. */
	readonly spec: string;
	/** Absent counts as `remote`: a provider that cannot say where it sends the context is not trusted with secrets. */
	readonly locality?: ModelLocality;
	/** The model's context window in tokens, where the provider knows it (a profile, the GGUF's metadata, Ollama's model info). */
	readonly contextWindow?: number;
	/** Counts tokens with the model's own tokenizer; absent, callers estimate and correct from reported usage. */
	countTokens?(text: string): number;
	complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
}

/** A model that cannot be reached or used; its message is one line meant for the user. */
export class ModelError extends Error {
	override name = "ModelError";
}
