/**
 * The embedded model's overhead per generated token: LlamaModel.complete (history conversion,
 * prompt count, grammar, answer streaming, reply parsing, usage) against calling node-llama-cpp's
 * LlamaChat.generateResponse directly with the same history, grammar and settings prepared
 * beforehand, on the same synthetic GGUF and prompt, interleaved. The model's reply is forced by
 * its weights and the grammar to the same tokens every run, and both variants must produce the
 * same number of them. Skipped, with the reason, when the llama runtime is not installed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { replySchema } from "../../models/llama/llama-grammar.js";
import { toChatHistory } from "../../models/llama/llama-history.js";
import { cpuLlama, LlamaModel } from "../../models/llama/llama-model.js";
import { INSTALL_SCRIPT, llamaRuntimeDir, loadLlamaRuntime, locateLlamaRuntime } from "../../models/llama/llama-runtime.js";
import { writeSyntheticGguf } from "../../models/llama/synthetic-gguf.js";
import type { Message, ToolSchema } from "../../models/provider.js";
import { BenchError } from "./bench-error.js";
import type { LlamaOverheadReport } from "./bench-types.js";
import { callTiming } from "./call-timing.js";

export interface LlamaBenchOptions {
	runs: number;
	warmupRuns: number;
	/** The synthetic model's hidden size and blocks. */
	hidden: number;
	layers: number;
	/** Characters of the one string the reply carries: its length sets the tokens generated. */
	replyChars: number;
	tempDir: string;
	env?: NodeJS.ProcessEnv;
	onProgress: (line: string) => void;
}

const CONTEXT = 2048;

/** A tool whose one argument has a fixed length, so the forced reply is the same length every run. */
function noteTool(chars: number): ToolSchema {
	return {
		name: "note",
		description: "Write a note",
		parameters: { type: "object", properties: { text: { type: "string", minLength: chars, maxLength: chars } }, required: ["text"], additionalProperties: false },
	};
}

const MESSAGES: Message[] = [
	{ role: "system", content: "You are a coding agent working inside one workspace directory through tools." },
	{ role: "user", content: "Take a note of what you see." },
];

export async function benchLlama(options: LlamaBenchOptions): Promise<LlamaOverheadReport> {
	const { runs, warmupRuns, hidden, layers, replyChars, onProgress } = options;
	const base = { runs, warmupRuns, model: { hidden, layers, contextSize: CONTEXT }, replyChars };
	const dir = llamaRuntimeDir(options.env);
	const found = locateLlamaRuntime(dir);
	if ("missing" in found) {
		const notRun = `llama runtime not installed: ${found.missing} (install it: node ${INSTALL_SCRIPT} ${dir})`;
		onProgress(`llama: not run: ${notRun}`);
		return { ...base, notRun };
	}
	if (replyChars < 1 || replyChars > 64) throw new BenchError(`replyChars must be 1..64 (the grammar's string bound), got ${replyChars}`);
	const work = mkdtempSync(join(options.tempDir, "warden-bench-llama-"));
	try {
		const file = join(work, "bench.gguf");
		// "t" lifted: the reply is a call to note (t of "tool"), its text all "t"s, ended by the grammar's bound.
		await writeSyntheticGguf(file, { hidden, layers, contextLength: CONTEXT, lifts: { t: 3 } });
		const runtime = await loadLlamaRuntime({ env: options.env, install: false });
		const tools = [noteTool(replyChars)];
		const provider = await LlamaModel.load(file, { env: options.env, install: false });
		const llama = await cpuLlama(runtime);
		const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
		const context = await model.createContext({ contextSize: CONTEXT, threads: 1, sequences: 1 });
		const chat = new runtime.LlamaChat({ contextSequence: context.getSequence() });
		const history = toChatHistory(MESSAGES, tools);
		const grammar = await llama.createGrammarForJsonSchema(replySchema(tools));
		try {
			const direct = async (): Promise<number> => {
				let tokens = 0;
				await chat.generateResponse(history, { grammar, temperature: 0, maxTokens: CONTEXT, onToken: (t) => (tokens += t.length) });
				return tokens;
			};
			const subject = async (): Promise<number> => {
				const reply = await provider.complete({ messages: MESSAGES, tools, onTextDelta: () => {} }, new AbortController().signal);
				if (reply.toolCalls[0]?.name !== "note") throw new BenchError("llama: the bench model did not call note; its weights no longer force the reply");
				return reply.usage?.completion_tokens ?? 0;
			};
			const samples = { direct: [] as number[], provider: [] as number[] };
			let generated = 0;
			let promptTokens = 0;
			onProgress(`llama: ${warmupRuns} warm-up and ${runs} measured replies per variant (hidden ${hidden}, ${layers} blocks), interleaved`);
			for (let r = 0; r < warmupRuns + runs; r++) {
				for (const [name, run] of [["direct", direct], ["provider", subject]] as const) {
					const started = performance.now();
					const tokens = await run();
					const elapsedUs = (performance.now() - started) * 1000;
					if (generated === 0) generated = tokens;
					// The same work or no comparison: both variants generate exactly the same tokens.
					if (tokens !== generated || tokens === 0) throw new BenchError(`llama (${name}) generated ${tokens} tokens in run ${r + 1}, expected ${generated}`);
					if (r >= warmupRuns) samples[name].push(elapsedUs / tokens);
				}
			}
			promptTokens = (await provider.complete({ messages: MESSAGES, tools }, new AbortController().signal)).usage?.prompt_tokens ?? 0;
			const directTiming = callTiming(samples.direct);
			const providerTiming = callTiming(samples.provider);
			return { ...base, promptTokens, generatedTokens: generated, direct: directTiming, provider: providerTiming, ratio: providerTiming.medianUs / directTiming.medianUs };
		} finally {
			await chat.dispose();
			await context.dispose();
			await model.dispose();
			await provider.dispose();
		}
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}
