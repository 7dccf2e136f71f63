import { oneLine } from "./one-line.js";
import { ModelError, type ModelResponse, type RawToolCall } from "./provider.js";

type Usage = NonNullable<ModelResponse["usage"]>;

interface PartialToolCall {
	id: string;
	name: string;
	/** Argument fragments joined so far; a server that sends a decoded object instead sets `decoded`. */
	arguments: string;
	decoded?: unknown;
}

/**
 * Builds one ModelResponse from the `chat.completion.chunk` objects of a stream: text deltas are
 * joined (and forwarded as they come), tool-call deltas are joined per index.
 */
export class CompletionStream {
	private text = "";
	private readonly calls = new Map<number, PartialToolCall>();
	private usage: Usage | undefined;
	private latestIndex: number | undefined;
	private chunks = 0;

	constructor(
		/** Prefix for errors, e.g. `model endpoint http://127.0.0.1:11434/v1`. */
		private readonly source: string,
		private readonly onTextDelta?: (delta: string) => void,
	) {}

	/** Takes the `data` payload of one SSE event (not `[DONE]`). */
	addData(data: string): void {
		let chunk: unknown;
		try {
			chunk = JSON.parse(data);
		} catch {
			throw new ModelError(`${this.source} sent a garbled stream chunk: ${oneLine(data, 80)}`);
		}
		if (!isObject(chunk)) throw new ModelError(`${this.source} sent a garbled stream chunk: ${oneLine(data, 80)}`);
		if (chunk.error !== undefined) {
			throw new ModelError(`${this.source} reported an error mid-stream: ${errorText(chunk.error) ?? oneLine(data, 160)}`);
		}
		this.chunks += 1;
		this.usage = readUsage(chunk.usage) ?? this.usage;
		const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
		const delta = isObject(choice) && isObject(choice.delta) ? choice.delta : undefined;
		if (delta === undefined) return;
		if (typeof delta.content === "string" && delta.content !== "") {
			this.text += delta.content;
			this.onTextDelta?.(delta.content);
		}
		if (Array.isArray(delta.tool_calls)) {
			for (const fragment of delta.tool_calls) if (isObject(fragment)) this.addToolCallFragment(fragment);
		}
	}

	get receivedAnything(): boolean {
		return this.chunks > 0;
	}

	result(): ModelResponse {
		const toolCalls = [...this.calls.entries()]
			.sort(([a], [b]) => a - b)
			.map(([, call]) => toRawToolCall(call.id, call.name, call.decoded ?? call.arguments));
		return this.usage === undefined ? { text: this.text, toolCalls } : { text: this.text, toolCalls, usage: this.usage };
	}

	private addToolCallFragment(fragment: Record<string, unknown>): void {
		const id = typeof fragment.id === "string" ? fragment.id : "";
		const index = typeof fragment.index === "number" ? fragment.index : this.indexOfUnnumbered(id);
		this.latestIndex = index;
		let call = this.calls.get(index);
		if (call === undefined) {
			call = { id: "", name: "", arguments: "" };
			this.calls.set(index, call);
		}
		if (call.id === "" && id !== "") call.id = id;
		const fn = isObject(fragment.function) ? fragment.function : {};
		// Some servers repeat the whole name in every chunk instead of sending it once; joining those
		// copies would invent a tool name the model never chose.
		if (typeof fn.name === "string" && fn.name !== call.name) call.name += fn.name;
		if (typeof fn.arguments === "string") call.arguments += fn.arguments;
		else if (fn.arguments !== undefined && fn.arguments !== null) call.decoded = fn.arguments;
	}

	/** Servers that omit `index` send calls whole: a new id is a new call, no id continues the latest. */
	private indexOfUnnumbered(id: string): number {
		for (const [index, call] of this.calls) if (id !== "" && call.id === id) return index;
		if (id === "" && this.latestIndex !== undefined) return this.latestIndex;
		return this.calls.size === 0 ? 0 : Math.max(...this.calls.keys()) + 1;
	}
}

/** Reads a whole (non-streaming) `chat.completion` object, for servers that ignore `stream: true`. */
export function decodeCompletion(body: unknown, source: string): ModelResponse {
	if (!isObject(body)) throw new ModelError(`${source} returned an unexpected response: not a JSON object`);
	if (body.error !== undefined) {
		throw new ModelError(`${source} reported an error: ${errorText(body.error) ?? "no message"}`);
	}
	const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
	if (!isObject(choice) || !isObject(choice.message)) {
		throw new ModelError(`${source} returned an unexpected response: no choices[0].message in the JSON body`);
	}
	const message = choice.message;
	const text = typeof message.content === "string" ? message.content : "";
	const toolCalls = (Array.isArray(message.tool_calls) ? message.tool_calls : []).filter(isObject).map((call) => {
		const fn = isObject(call.function) ? call.function : {};
		return toRawToolCall(typeof call.id === "string" ? call.id : "", typeof fn.name === "string" ? fn.name : "", fn.arguments ?? "");
	});
	const usage = readUsage(body.usage);
	return usage === undefined ? { text, toolCalls } : { text, toolCalls, usage };
}

/** The message inside an OpenAI-style (`{error: {message}}`), Ollama-style (`{error: "..."}`) or similar error value. */
export function errorText(error: unknown): string | undefined {
	if (typeof error === "string" && error.trim() !== "") return oneLine(error);
	if (isObject(error)) {
		for (const key of ["message", "error", "detail"]) {
			const value = error[key];
			if (typeof value === "string" && value.trim() !== "") return oneLine(value);
		}
	}
	return undefined;
}

function toRawToolCall(id: string, name: string, args: unknown): RawToolCall {
	return id === "" ? { name, arguments: args } : { id, name, arguments: args };
}

function readUsage(value: unknown): Usage | undefined {
	if (!isObject(value)) return undefined;
	const { prompt_tokens, completion_tokens } = value;
	if (typeof prompt_tokens !== "number" || typeof completion_tokens !== "number") return undefined;
	// OpenAI reports the cached part of the prompt under prompt_tokens_details; it is already counted in prompt_tokens.
	const details = value.prompt_tokens_details;
	const cached = isObject(details) && typeof details.cached_tokens === "number" ? details.cached_tokens : undefined;
	return cached === undefined ? { prompt_tokens, completion_tokens } : { prompt_tokens, completion_tokens, cached_tokens: cached };
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
