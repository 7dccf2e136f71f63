/**
 * Writes a small GGUF v3 model (llama architecture, byte-level BPE vocabulary, random F32 weights)
 * so the tests and the bench run a real model through node-llama-cpp without downloading one. Its
 * output is meaningless text: whoever uses it asserts structure, never words.
 */
import { writeFile } from "node:fs/promises";
import { CALL_THEN_ANSWER_ROPE_BASE, callThenAnswerWeight } from "./call-then-answer-weights.js";
import { mulberry32 } from "../seeded-random.js";

export interface SyntheticGgufOptions {
	/** Hidden size (default 64; a multiple of 4, the head count). */
	hidden?: number;
	/** Transformer blocks (default 2). */
	layers?: number;
	/** Seeds the weights: the same seed writes the same file. */
	seed?: number;
	contextLength?: number;
	/** Leaves out a key llama.cpp requires, to write a model that aborts whoever loads it. */
	omitKey?: string;
	/**
	 * Output lifts by single-byte character: one hidden dimension carries a constant through every
	 * position and only these characters' output rows read it, so each wins wherever the grammar
	 * allows it. The default, `{ '"': 3 }`, ends every JSON string as soon as its grammar allows:
	 * replies stay a few tokens long and the tests fast. `{}` leaves the weights purely random.
	 */
	lifts?: Record<string, number>;
	/** Hand-set weights instead of random ones: a model that calls list_dir, then answers (call-then-answer-weights.ts). */
	design?: "call-then-answer";
}

export const SYNTHETIC_GGUF_CONTEXT_LENGTH = 512;
const HEADS = 4;
const ALIGNMENT = 32;
/** The hidden dimension that carries the lifts' constant. */
const CARRIER = 0;
const SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"];
const CHATML = `{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}`;

enum ValueType {
	Uint32 = 4,
	Int32 = 5,
	Float32 = 6,
	Bool = 7,
	String = 8,
	Array = 9,
}

type Value = { type: ValueType.Uint32 | ValueType.Int32 | ValueType.Float32; value: number } | { type: ValueType.Bool; value: boolean } | { type: ValueType.String; value: string } | { type: ValueType.Array; of: ValueType.String; value: string[] } | { type: ValueType.Array; of: ValueType.Int32; value: number[] };

/** Writes the model to `file` and returns its vocabulary size. */
export async function writeSyntheticGguf(file: string, options: SyntheticGgufOptions = {}): Promise<{ vocabSize: number }> {
	const shape = { hidden: options.hidden ?? 64, layers: options.layers ?? 2 };
	const hidden = shape.hidden;
	const tokens = [...byteTokens(), ...SPECIAL];
	const vocab = tokens.length;
	const types = tokens.map((_, i) => (i < 256 ? 1 : 3));
	const u32 = (value: number): Value => ({ type: ValueType.Uint32, value });
	const kv: [string, Value][] = [
		["general.architecture", { type: ValueType.String, value: "llama" }],
		["general.name", { type: ValueType.String, value: "warden-tiny" }],
		["general.alignment", u32(ALIGNMENT)],
		["llama.context_length", u32(options.contextLength ?? SYNTHETIC_GGUF_CONTEXT_LENGTH)],
		["llama.embedding_length", u32(hidden)],
		["llama.block_count", u32(shape.layers)],
		["llama.feed_forward_length", u32(2 * hidden)],
		["llama.attention.head_count", u32(HEADS)],
		["llama.attention.head_count_kv", u32(HEADS)],
		["llama.rope.dimension_count", u32(hidden / HEADS)],
		["llama.attention.layer_norm_rms_epsilon", { type: ValueType.Float32, value: 1e-5 }],
		["tokenizer.ggml.model", { type: ValueType.String, value: "gpt2" }],
		["tokenizer.ggml.pre", { type: ValueType.String, value: "default" }],
		["tokenizer.ggml.tokens", { type: ValueType.Array, of: ValueType.String, value: tokens }],
		["tokenizer.ggml.token_type", { type: ValueType.Array, of: ValueType.Int32, value: types }],
		["tokenizer.ggml.merges", { type: ValueType.Array, of: ValueType.String, value: [] }],
		["tokenizer.ggml.bos_token_id", u32(256)],
		["tokenizer.ggml.eos_token_id", u32(258)],
		["tokenizer.ggml.add_bos_token", { type: ValueType.Bool, value: false }],
		["tokenizer.chat_template", { type: ValueType.String, value: CHATML }],
	];
	if (options.design === "call-then-answer") kv.push(["llama.rope.freq_base", { type: ValueType.Float32, value: CALL_THEN_ANSWER_ROPE_BASE }]);
	const metadata = kv.filter(([key]) => key !== options.omitKey);
	const tensors = tensorShapes(vocab, shape.hidden, shape.layers);
	const random = mulberry32(options.seed ?? 1);
	const out = new Chunks();
	out.bytes(Buffer.from("GGUF", "latin1"));
	out.u32(3);
	out.u64(tensors.length);
	out.u64(metadata.length);
	for (const [key, value] of metadata) {
		out.string(key);
		out.value(value);
	}
	let offset = 0;
	for (const tensor of tensors) {
		out.string(tensor.name);
		out.u32(tensor.dims.length);
		for (const d of tensor.dims) out.u64(d);
		out.u32(0); // F32
		out.u64(offset);
		offset = align(offset + 4 * count(tensor.dims));
	}
	out.pad();
	const lifts = new Map(Object.entries(options.lifts ?? { '"': 3 }).map(([char, weight]) => [char.charCodeAt(0), weight]));
	const lift = lifts.size > 0;
	for (const tensor of tensors) {
		const data = Buffer.alloc(align(4 * count(tensor.dims)));
		const n = count(tensor.dims);
		for (let i = 0; i < n; i++) {
			if (options.design === "call-then-answer") {
				data.writeFloatLE(callThenAnswerWeight(tensor.name, i, hidden, random() - 0.5), 4 * i);
				continue;
			}
			let w = tensor.norm ? 1 : (random() - 0.5) * 0.5;
			// Weights are stored row by row of ne[0] = hidden values, so i % hidden is the hidden dimension.
			if (lift && tensor.name === "token_embd.weight" && i % hidden === CARRIER) w = 4;
			if (lift && tensor.name === "output.weight" && i % hidden === CARRIER) w = lifts.get(Math.floor(i / hidden)) ?? 0;
			data.writeFloatLE(w, 4 * i);
		}
		out.bytes(data);
	}
	await writeFile(file, out.join());
	return { vocabSize: vocab };
}

function tensorShapes(vocab: number, hidden: number, layers: number): { name: string; dims: number[]; norm?: boolean }[] {
	const feedForward = 2 * hidden;
	const shapes: { name: string; dims: number[]; norm?: boolean }[] = [{ name: "token_embd.weight", dims: [hidden, vocab] }];
	for (let layer = 0; layer < layers; layer++) {
		const blk = `blk.${layer}`;
		shapes.push(
			{ name: `${blk}.attn_norm.weight`, dims: [hidden], norm: true },
			{ name: `${blk}.attn_q.weight`, dims: [hidden, hidden] },
			{ name: `${blk}.attn_k.weight`, dims: [hidden, hidden] },
			{ name: `${blk}.attn_v.weight`, dims: [hidden, hidden] },
			{ name: `${blk}.attn_output.weight`, dims: [hidden, hidden] },
			{ name: `${blk}.ffn_norm.weight`, dims: [hidden], norm: true },
			{ name: `${blk}.ffn_gate.weight`, dims: [hidden, feedForward] },
			{ name: `${blk}.ffn_up.weight`, dims: [hidden, feedForward] },
			{ name: `${blk}.ffn_down.weight`, dims: [feedForward, hidden] },
		);
	}
	shapes.push({ name: "output_norm.weight", dims: [hidden], norm: true }, { name: "output.weight", dims: [hidden, vocab] });
	return shapes;
}

/** GPT-2's byte-to-character map: every byte is one printable token. */
function byteTokens(): string[] {
	const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
	let shifted = 0;
	return Array.from({ length: 256 }, (_, b) => String.fromCodePoint(printable(b) ? b : 256 + shifted++));
}

class Chunks {
	private readonly parts: Buffer[] = [];
	private length = 0;
	bytes(b: Buffer): void {
		this.parts.push(b);
		this.length += b.length;
	}
	u32(n: number): void {
		const b = Buffer.alloc(4);
		b.writeUInt32LE(n);
		this.bytes(b);
	}
	u64(n: number): void {
		const b = Buffer.alloc(8);
		b.writeBigUInt64LE(BigInt(n));
		this.bytes(b);
	}
	string(s: string): void {
		const b = Buffer.from(s, "utf8");
		this.u64(b.length);
		this.bytes(b);
	}
	value(v: Value): void {
		this.u32(v.type);
		if (v.type === ValueType.String) this.string(v.value);
		else if (v.type === ValueType.Array) {
			this.u32(v.of);
			this.u64(v.value.length);
			for (const item of v.value) typeof item === "string" ? this.string(item) : this.i32(item);
		} else if (v.type === ValueType.Float32) {
			const b = Buffer.alloc(4);
			b.writeFloatLE(v.value);
			this.bytes(b);
		} else if (v.type === ValueType.Bool) this.bytes(Buffer.from([v.value ? 1 : 0]));
		else this.u32(v.value);
	}
	i32(n: number): void {
		const b = Buffer.alloc(4);
		b.writeInt32LE(n);
		this.bytes(b);
	}
	pad(): void {
		this.bytes(Buffer.alloc(align(this.length) - this.length));
	}
	join(): Buffer {
		return Buffer.concat(this.parts);
	}
}

const align = (n: number) => Math.ceil(n / ALIGNMENT) * ALIGNMENT;
const count = (dims: number[]) => dims.reduce((a, b) => a * b, 1);

