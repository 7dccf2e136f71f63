/**
 * Hand-set weights for the synthetic GGUF that make a reply-protocol model call `list_dir` on
 * "é" first and answer once that call is in its context, so an end-to-end run takes one governed
 * tool call and then finishes: real inference through llama.cpp, with margins wide enough that
 * float differences between CPUs cannot flip a choice. Everything not set here is near zero.
 *
 * How: every token carries a constant on hidden dimension 0; the byte 0xC3 (the lead byte of
 * "é", which the prompt never holds) also sets dimension 1. In layer 0, head 0 queries with the
 * constant and keys on dimension 1, on the last rotary pair (whose rotation a huge rope base
 * freezes), so attention lands on any 0xC3 in the context and copies it into dimension 2. The
 * output reads dimension 0 for the closing quote, end-of-turn, "t" (of "tool"), "l" (of
 * "list_dir") and 0xC3 0xA9 ("é"), and dimension 2 for "a" (of "answer"), which wins once the
 * model's own earlier call is in view.
 */

export const CALL_THEN_ANSWER_ROPE_BASE = 1e30;
const LEAD = 0xc3;
const CONTINUATION = 0xa9;
const END_OF_TURN = 258;

/** Output lifts on the constant dimension, by token id; "a" is lifted on dimension 2 instead. */
const CONSTANT_LIFT = new Map<number, number>([
	[END_OF_TURN, 9],
	[0x22, 8], // the closing quote: every string ends once its grammar allows
	[LEAD, 2],
	[CONTINUATION, 1.5],
	[0x74, 1], // "t": at `{"`, a tool call unless dimension 2 says otherwise
	[0x6c, 1], // "l": the tool is list_dir
]);
const ANSWER = 0x61;

/** The weight at flat index `i` of `tensor` (ne[0] = hidden, so i % hidden is the input dimension). */
export function callThenAnswerWeight(tensor: string, i: number, hidden: number, noise: number): number {
	const row = Math.floor(i / hidden);
	const col = i % hidden;
	const headDim = hidden / 4;
	switch (tensor) {
		case "token_embd.weight":
			if (col === 0) return 1;
			if (col === 1) return row === LEAD ? 1 : 0;
			return col >= 8 ? noise * 0.04 : 0;
		case "output.weight":
			if (col === 0) return CONSTANT_LIFT.get(row) ?? 0;
			if (col === 2) return row === ANSWER ? 1 : 0;
			return col >= 8 ? noise * 0.04 : 0;
		case "blk.0.attn_q.weight":
			return row === headDim - 2 && col === 0 ? 1 : 0;
		case "blk.0.attn_k.weight":
			return row === headDim - 2 && col === 1 ? 1 : 0;
		case "blk.0.attn_v.weight":
			return row === 0 && col === 1 ? 1 : 0;
		case "blk.0.attn_output.weight":
			return row === 2 && col === 0 ? 1 : 0;
		default:
			return tensor.endsWith("norm.weight") ? 1 : 0;
	}
}
