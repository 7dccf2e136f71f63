import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAbortError } from "../abort-error.js";
import { type Message, ModelError, type ToolSchema } from "../provider.js";
import { TEST_LLAMA_ENV } from "../test-support/llama-test-runtime.js";
import { LlamaModel } from "./llama-model.js";
import { SYNTHETIC_GGUF_CONTEXT_LENGTH, writeSyntheticGguf } from "./synthetic-gguf.js";

const dir = mkdtempSync(join(tmpdir(), "warden-llama-model-"));
const env = { ...process.env, ...TEST_LLAMA_ENV };
const signal = () => new AbortController().signal;
const listDir: ToolSchema = {
	name: "list_dir",
	description: "List a directory",
	parameters: { type: "object", properties: { path: { type: "string", minLength: 1 } }, required: ["path"], additionalProperties: false },
};
const ask = (content: string): Message[] => [{ role: "user", content }];

// Small prompts and the tiny models' short replies keep every generation to a few dozen tokens.
let random: LlamaModel;
let designed: LlamaModel;
let rambling: LlamaModel;

beforeAll(async () => {
	const files = { random: join(dir, "random.gguf"), designed: join(dir, "designed.gguf"), rambling: join(dir, "rambling.gguf") };
	await writeSyntheticGguf(files.random);
	await writeSyntheticGguf(files.designed, { design: "call-then-answer", contextLength: 1024 });
	await writeSyntheticGguf(files.rambling, { lifts: {} });
	random = await LlamaModel.load(files.random, { env, install: false });
	designed = await LlamaModel.load(files.designed, { env, install: false });
	rambling = await LlamaModel.load(files.rambling, { env, install: false, maxTokens: 24 });
}, 120_000);

afterAll(async () => {
	await Promise.all([random?.dispose(), designed?.dispose(), rambling?.dispose()]);
});

describe("LlamaModel (synthetic GGUF, real inference in this process)", () => {
	it("describes itself: in-process, the GGUF's context_length as its window, its own tokenizer", () => {
		expect(random.spec).toBe(`llama:${join(dir, "random.gguf")}`);
		expect(random.locality).toBe("in-process");
		expect(random.contextWindow).toBe(SYNTHETIC_GGUF_CONTEXT_LENGTH);
		expect(designed.contextWindow).toBe(1024);
		// A byte-level vocabulary without merges: one token per byte.
		expect(random.countTokens("hello")).toBe(5);
		expect(random.countTokens("é")).toBe(2);
	});

	it("answers with the text it streamed, and reports usage; the repeated prompt comes from the KV cache", async () => {
		const deltas: string[] = [];
		const first = await random.complete({ messages: ask("hi"), tools: [], onTextDelta: (d) => deltas.push(d) }, signal());
		expect(first.toolCalls).toEqual([]);
		expect(deltas.join("")).toBe(first.text);
		expect(first.usage?.prompt_tokens).toBeGreaterThan(0);
		expect(first.usage?.completion_tokens).toBeGreaterThan(0);
		const again = await random.complete({ messages: ask("hi"), tools: [] }, signal());
		expect(again.usage?.prompt_tokens).toBe(first.usage?.prompt_tokens);
		expect(again.usage?.cached_tokens).toBeGreaterThan(first.usage?.cached_tokens ?? 0);
	});

	it("emits a tool call the grammar shaped from the tool's schema, then answers once the result is in", async () => {
		const call = await designed.complete({ messages: ask("hi"), tools: [listDir] }, signal());
		expect(call.text).toBe("");
		expect(call.toolCalls).toEqual([{ name: "list_dir", arguments: { path: "é" } }]);
		const messages: Message[] = [
			...ask("hi"),
			{ role: "assistant", content: "", tool_calls: [{ id: "call_1_1_1", name: "list_dir", arguments: JSON.stringify({ path: "é" }) }] },
			{ role: "tool", tool_call_id: "call_1_1_1", name: "list_dir", content: "inside.txt" },
		];
		const answer = await designed.complete({ messages, tools: [listDir] }, signal());
		expect(answer.toolCalls).toEqual([]);
		expect(typeof answer.text).toBe("string");
	});

	it("a random model's reply under the grammar is always an answer or a well-formed call to an offered tool", async () => {
		const reply = await random.complete({ messages: ask("list"), tools: [listDir] }, signal());
		if (reply.toolCalls.length > 0) {
			expect(reply.toolCalls).toHaveLength(1);
			expect(reply.toolCalls[0]?.name).toBe("list_dir");
			expect(reply.toolCalls[0]?.arguments).toMatchObject({ path: expect.any(String) });
		} else {
			expect(typeof reply.text).toBe("string");
		}
	});

	it("a reply cut by the token limit is a one-line error, not half an answer", async () => {
		const error = await rambling.complete({ messages: ask("hi"), tools: [] }, signal()).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ModelError);
		expect((error as Error).message).toBe(`${rambling.spec} reached its token limit (24 tokens) before finishing its reply`);
	});

	it("stops when the call is cancelled mid-stream, and the next call still runs", async () => {
		const controller = new AbortController();
		const error = await rambling
			.complete({ messages: ask("hi"), tools: [], onTextDelta: () => controller.abort() }, controller.signal)
			.catch((e: unknown) => e);
		expect(isAbortError(error)).toBe(true);
		const aborted = new AbortController();
		aborted.abort();
		expect(isAbortError(await random.complete({ messages: ask("hi"), tools: [] }, aborted.signal).catch((e: unknown) => e))).toBe(true);
		const after = await random.complete({ messages: ask("hi"), tools: [] }, signal());
		expect(after.toolCalls).toEqual([]);
	});

	it("refuses a prompt that does not fit the context window, in one line", async () => {
		const error = await random.complete({ messages: ask("x".repeat(SYNTHETIC_GGUF_CONTEXT_LENGTH)), tools: [] }, signal()).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ModelError);
		expect((error as Error).message).toMatch(new RegExp(`: the prompt \\(\\d+ tokens\\) fills the context window \\(${SYNTHETIC_GGUF_CONTEXT_LENGTH}\\)$`));
	});
});
