/**
 * `llama:<path.gguf>`: a GGUF model run in this process by node-llama-cpp on the CPU, one thread
 * per context (more threads than cores is many times slower on a small machine). Replies are
 * grammar-constrained JSON (llama-grammar.ts), so tool calls are always well formed; the answer
 * streams as it is written; generation stops at the model's end-of-turn or the grammar's end.
 */
import { isAbortError, AbortError } from "../abort-error.js";
import { ModelError, type ModelProvider, type ModelRequest, type ModelResponse, type ToolSchema } from "../provider.js";
import { AnswerStream } from "./answer-stream.js";
import { parseReply, replySchema } from "./llama-grammar.js";
import { toChatHistory } from "./llama-history.js";
import { probeModel } from "./llama-probe.js";
import { type LoadRuntimeOptions, llamaRuntimeDir, loadLlamaRuntime, locateLlamaRuntime } from "./llama-runtime.js";
import type { Context, ContextSequence, Grammar, Llama, LlamaChat, Model, NodeLlamaCpp } from "./node-llama-types.js";

export interface LlamaModelOptions extends LoadRuntimeOptions {
	/** Tokens one reply may take; default: what is left of the context. */
	maxTokens?: number;
	/** The context to allocate; default: the GGUF's context_length, or as much of it as memory holds. */
	contextSize?: number;
	/** The spec the model was named by; default `llama:<path>`. */
	spec?: string;
}

const llamas = new WeakMap<NodeLlamaCpp, Promise<Llama>>();

/** One llama.cpp instance per runtime module: CPU only, one thread, never builds or downloads. */
export function cpuLlama(runtime: NodeLlamaCpp): Promise<Llama> {
	let llama = llamas.get(runtime);
	if (!llama) {
		llama = withForkableExecArgv(() => runtime.getLlama({ gpu: false, build: "never", skipDownload: true, maxThreads: 1, logLevel: "error", progressLogs: false }));
		llamas.set(runtime, llama);
	}
	return llama;
}

/** Node options that carry a script of their own (`node -e '...'`), with whether the script is the next argument. */
const SCRIPT_FLAGS: [flag: string, takesNext: boolean][] = [
	["-e", true],
	["--eval", true],
	["-p", true],
	["--print", true],
	["--input-type", true],
];

/**
 * getLlama tests its binary in a fork, and a fork inherits process.execArgv: in a process started
 * as `node -e '...'` the fork would run that script again instead of the test, and the binary
 * would be reported unusable. The script's flags are left out of execArgv while getLlama runs.
 */
export function withForkableExecArgv<T>(start: () => Promise<T>): Promise<T> {
	const original = process.execArgv;
	const kept: string[] = [];
	for (let i = 0; i < original.length; i++) {
		const arg = original[i]!;
		const flag = SCRIPT_FLAGS.find(([name]) => arg === name || arg.startsWith(`${name}=`));
		if (!flag) kept.push(arg);
		else if (flag[1] && arg === flag[0]) i++;
	}
	if (kept.length === original.length) return start();
	process.execArgv = kept;
	return start().finally(() => {
		process.execArgv = original;
	});
}

export class LlamaModel implements ModelProvider {
	readonly spec: string;
	readonly locality = "in-process" as const;
	readonly contextWindow: number;
	private readonly grammars = new Map<string, Promise<Grammar>>();
	private queue: Promise<unknown> = Promise.resolve();

	private constructor(
		spec: string,
		private readonly llama: Llama,
		private readonly model: Model,
		private readonly context: Context,
		private readonly sequence: ContextSequence,
		private readonly chat: LlamaChat,
		private readonly maxTokens: number | undefined,
	) {
		this.spec = spec;
		this.contextWindow = context.contextSize;
	}

	/** Probes the file in a child process, then loads it here; every failure is a one-line ModelError. */
	static async load(path: string, options: LlamaModelOptions = {}): Promise<LlamaModel> {
		const runtime = await loadLlamaRuntime(options);
		const dir = llamaRuntimeDir(options.env);
		const found = locateLlamaRuntime(dir);
		if ("missing" in found) throw new ModelError(`llama runtime unavailable: ${found.missing}`);
		await probeModel(found.entry, path, dir);
		const llama = await cpuLlama(runtime);
		let model: Model | undefined;
		try {
			model = await llama.loadModel({ modelPath: path, gpuLayers: 0 });
			// The GGUF's context_length where memory allows it (node-llama-cpp measures), never under 2048 tokens or the file's own length.
			const train = model.trainContextSize;
			const contextSize = options.contextSize ?? { min: Math.min(2048, train), max: train };
			const context = await model.createContext({ contextSize, threads: 1, sequences: 1 });
			const sequence = context.getSequence();
			const chat = new runtime.LlamaChat({ contextSequence: sequence, autoDisposeSequence: false });
			return new LlamaModel(options.spec ?? `llama:${path}`, llama, model, context, sequence, chat, options.maxTokens);
		} catch (error) {
			// A context that does not fit must not leave the weights loaded.
			await model?.dispose().catch(() => undefined);
			throw new ModelError(`llama model ${path} could not be loaded: ${firstLine(error)}`);
		}
	}

	countTokens(text: string): number {
		return this.model.tokenize(text).length;
	}

	/** One reply at a time: the model has one context sequence. */
	complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		const next = this.queue.then(() => this.generate(request, signal));
		this.queue = next.catch(() => undefined);
		return next;
	}

	async dispose(): Promise<void> {
		await this.chat.dispose();
		await this.sequence.dispose();
		await this.context.dispose();
		await this.model.dispose();
	}

	private async generate(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		if (signal.aborted) throw new AbortError();
		const history = toChatHistory(request.messages, request.tools);
		const prompt = this.chat.chatWrapper.generateContextState({ chatHistory: history }).contextText.tokenize(this.model.tokenizer).length;
		const room = this.contextWindow - prompt;
		if (room <= 0) throw new ModelError(`${this.spec}: the prompt (${prompt} tokens) fills the context window (${this.contextWindow})`);
		const stream = new AnswerStream((delta) => request.onTextDelta?.(delta));
		const before = this.sequence.tokenMeter.getState().usedInputTokens;
		let completion = 0;
		let result: Awaited<ReturnType<LlamaChat["generateResponse"]>>;
		try {
			result = await this.chat.generateResponse(history, {
				grammar: await this.grammar(request.tools),
				maxTokens: Math.min(room, this.maxTokens ?? room),
				temperature: 0,
				signal,
				onTextChunk: (text) => stream.push(text),
				onToken: (tokens) => {
					completion += tokens.length;
				},
			});
		} catch (error) {
			if (signal.aborted || isAbortError(error)) throw new AbortError();
			throw new ModelError(`${this.spec} failed while generating: ${firstLine(error)}`);
		}
		if (signal.aborted) throw new AbortError();
		if (result.metadata.stopReason === "maxTokens") {
			throw new ModelError(`${this.spec} reached its token limit (${completion} tokens) before finishing its reply`);
		}
		const evaluated = this.sequence.tokenMeter.getState().usedInputTokens - before;
		let reply: ReturnType<typeof parseReply>;
		try {
			reply = parseReply(result.response, request.tools);
		} catch (error) {
			throw new ModelError(`${this.spec}: ${firstLine(error)}`);
		}
		return {
			...reply,
			usage: { prompt_tokens: prompt, completion_tokens: completion, cached_tokens: cachedTokens(prompt, evaluated) },
		};
	}

	private grammar(tools: ToolSchema[]): Promise<Grammar> {
		const schema = replySchema(tools);
		const key = JSON.stringify(schema);
		let grammar = this.grammars.get(key);
		if (!grammar) {
			grammar = this.llama.createGrammarForJsonSchema(schema);
			this.grammars.set(key, grammar);
			grammar.catch(() => this.grammars.delete(key));
		}
		return grammar;
	}
}

/**
 * The part of the prompt the context already held from the last reply (llama.cpp's KV cache):
 * the meter counts the prompt tokens it had to evaluate, and the prompt's last token is always
 * evaluated again, for the logits of the reply's first.
 */
function cachedTokens(prompt: number, evaluated: number): number {
	return Math.max(0, prompt - 1 - evaluated);
}

function firstLine(error: unknown): string {
	const text = error instanceof Error ? error.message : String(error);
	return text.split("\n")[0]!.trim();
}
