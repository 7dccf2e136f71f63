/**
 * Token counts for the context: the model's own tokenizer where the provider has one, else an
 * estimate from characters corrected by what the provider reported for earlier requests.
 */
import type { Message, ModelProvider, ToolSchema } from "../../models/provider.js";

/** Characters per token for English text and code under common BPE vocabularies: an estimate, corrected by reported usage. */
export const CHARS_PER_TOKEN = 4;
/** Role markers and separators a chat template adds around each message. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** The correction factor never moves the estimate beyond these bounds: one odd report must not blind compaction. */
const MIN_FACTOR = 0.25;
const MAX_FACTOR = 4;

export interface TokenCountSource {
	/** `tokenizer`: the provider's countTokens; `estimate`: characters, times the correction factor. */
	method: "tokenizer" | "estimate";
	/** Reported prompt tokens over the estimate of the same request, from the latest report (1 before any). */
	factor: number;
	/** How many reports have corrected the factor. */
	reports: number;
}

/** One session's counter: the correction factor belongs to the session's model and conversation. */
export class TokenCounter {
	private factor = 1;
	private reports = 0;
	/** Each message counted once: a long session's every step would otherwise recount its whole history. */
	private readonly counted = new WeakMap<Message, { content: string; calls: unknown; raw: number }>();
	/** By the schema object: a registry hands out fresh views of the same definitions at every step. */
	private readonly countedTools = new WeakMap<object, { name: string; description: string; raw: number }>();

	constructor(private readonly model: Pick<ModelProvider, "countTokens">) {}

	get source(): TokenCountSource {
		return { method: this.model.countTokens ? "tokenizer" : "estimate", factor: this.factor, reports: this.reports };
	}

	/** Tokens of one piece of text, before correction. */
	private raw(text: string): number {
		if (this.model.countTokens) return this.model.countTokens(text);
		return Math.ceil(text.length / CHARS_PER_TOKEN);
	}

	/** The raw count of one message: its content, its tool calls' names and arguments, and the template's overhead. */
	rawMessage(message: Message): number {
		const calls = message.role === "assistant" ? message.tool_calls : undefined;
		const known = this.counted.get(message);
		// A message changed in place (its text or its calls) is counted again.
		if (known && known.content === message.content && known.calls === calls) return known.raw;
		const raw = this.countMessage(message);
		this.counted.set(message, { content: message.content, calls, raw });
		return raw;
	}

	private countMessage(message: Message): number {
		let n = MESSAGE_OVERHEAD_TOKENS + this.raw(message.content);
		if (message.role === "assistant") for (const call of message.tool_calls ?? []) n += this.raw(call.name) + this.raw(call.arguments) + MESSAGE_OVERHEAD_TOKENS;
		if (message.role === "tool") n += this.raw(message.name);
		return n;
	}

	rawTools(tools: readonly ToolSchema[]): number {
		let n = 0;
		for (const t of tools) {
			const key = typeof t.parameters === "object" && t.parameters !== null ? (t.parameters as object) : undefined;
			const known = key ? this.countedTools.get(key) : undefined;
			if (known && known.name === t.name && known.description === t.description) {
				n += known.raw;
				continue;
			}
			const raw = this.raw(t.name) + this.raw(t.description) + this.raw(JSON.stringify(t.parameters));
			if (key) this.countedTools.set(key, { name: t.name, description: t.description, raw });
			n += raw;
		}
		return n;
	}

	/** A raw count made comparable with what the provider reports. */
	corrected(raw: number): number {
		return Math.ceil(raw * this.factor);
	}

	message(message: Message): number {
		return this.corrected(this.rawMessage(message));
	}

	/** The whole request as the provider will count its prompt. */
	request(messages: readonly Message[], tools: readonly ToolSchema[]): number {
		return this.corrected(messages.reduce((n, m) => n + this.rawMessage(m), this.rawTools(tools)));
	}

	/**
	 * A provider reported `promptTokens` for a request whose raw count was `raw`: the next counts use
	 * that ratio. The latest report wins, since the conversation's mix of text and code drifts.
	 */
	observe(raw: number, promptTokens: number): void {
		if (!(raw > 0) || !(promptTokens > 0)) return;
		this.factor = Math.min(MAX_FACTOR, Math.max(MIN_FACTOR, promptTokens / raw));
		this.reports++;
	}
}
