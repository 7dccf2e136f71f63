/**
 * Builds one ModelResponse from the Messages API's stream events: text deltas joined and
 * forwarded, each tool_use block's input assembled from its `input_json_delta` fragments, usage
 * taken from message_start and corrected by message_delta, and the stop reason checked.
 */
import type { RawMessageStreamEvent, StopReason } from "@anthropic-ai/sdk/resources/messages";
import { ModelError, type ModelResponse, type RawToolCall } from "./provider.js";

interface Block {
	kind: "text" | "tool_use" | "other";
	id?: string;
	name?: string;
	/** Joined partial JSON of a tool_use block. */
	json: string;
	/** The input the start event carried, used when no fragments follow. */
	initial?: unknown;
}

interface UsageCounts {
	input_tokens?: number | null;
	output_tokens?: number | null;
	cache_creation_input_tokens?: number | null;
	cache_read_input_tokens?: number | null;
}

/** What each stop reason means for the answer: fine, or a one-line failure. */
const STOP_REASONS: Readonly<Record<StopReason, "answer" | string>> = {
	end_turn: "answer",
	tool_use: "answer",
	stop_sequence: "answer",
	pause_turn: "answer",
	max_tokens: "answer",
	refusal: "declined to answer (stop reason: refusal)",
	model_context_window_exceeded: "stopped: the conversation no longer fits its context window",
};

export class AnthropicStream {
	private text = "";
	private readonly blocks = new Map<number, Block>();
	private readonly usage: UsageCounts = {};
	private stopReason: StopReason | null = null;
	private events = 0;

	constructor(
		private readonly source: string,
		private readonly onTextDelta?: (delta: string) => void,
	) {}

	get receivedAnything(): boolean {
		return this.events > 0;
	}

	add(event: RawMessageStreamEvent): void {
		this.events += 1;
		switch (event.type) {
			case "message_start":
				Object.assign(this.usage, event.message.usage);
				break;
			case "content_block_start": {
				const block = event.content_block;
				if (block.type === "text") {
					this.blocks.set(event.index, { kind: "text", json: "" });
					if (block.text !== "") this.addText(block.text);
				} else if (block.type === "tool_use") {
					this.blocks.set(event.index, { kind: "tool_use", id: block.id, name: block.name, json: "", initial: block.input });
				} else this.blocks.set(event.index, { kind: "other", json: "" });
				break;
			}
			case "content_block_delta": {
				const block = this.blocks.get(event.index);
				if (event.delta.type === "text_delta") this.addText(event.delta.text);
				else if (event.delta.type === "input_json_delta" && block?.kind === "tool_use") block.json += event.delta.partial_json;
				break;
			}
			case "message_delta":
				this.stopReason = event.delta.stop_reason ?? this.stopReason;
				// Cumulative counts: a field it sets replaces the one message_start gave.
				for (const [key, value] of Object.entries(event.usage)) {
					if (typeof value === "number") (this.usage as Record<string, number>)[key] = value;
				}
				break;
			default:
				break;
		}
	}

	result(): ModelResponse {
		const verdict = this.stopReason === null ? "answer" : STOP_REASONS[this.stopReason];
		if (verdict !== undefined && verdict !== "answer") throw new ModelError(`${this.source} ${verdict}`);
		const toolCalls: RawToolCall[] = [...this.blocks.entries()]
			.sort(([a], [b]) => a - b)
			.filter(([, block]) => block.kind === "tool_use")
			.map(([, block]) => ({ id: block.id ?? "", name: block.name ?? "", arguments: block.json !== "" ? block.json : JSON.stringify(block.initial ?? {}) }));
		if (this.stopReason === "max_tokens" && toolCalls.length > 0) {
			throw new ModelError(`${this.source} ran out of output tokens (max_tokens) in the middle of a tool call`);
		}
		const response: ModelResponse = { text: this.text, toolCalls };
		const usage = this.honestUsage();
		if (usage !== undefined) response.usage = usage;
		return response;
	}

	private addText(delta: string): void {
		this.text += delta;
		this.onTextDelta?.(delta);
	}

	/** The API's input_tokens leave out the cached part; Warden's prompt_tokens is the whole prompt, cached_tokens the part read from the cache. */
	private honestUsage(): ModelResponse["usage"] {
		const { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens } = this.usage;
		if (typeof input_tokens !== "number" || typeof output_tokens !== "number") return undefined;
		const read = cache_read_input_tokens ?? 0;
		const usage: NonNullable<ModelResponse["usage"]> = { prompt_tokens: input_tokens + (cache_creation_input_tokens ?? 0) + read, completion_tokens: output_tokens };
		if (read > 0) usage.cached_tokens = read;
		return usage;
	}
}
