import { describe, expect, it } from "vitest";
import { AnswerStream } from "./answer-stream.js";

function streamed(chunks: string[]): string[] {
	const out: string[] = [];
	const stream = new AnswerStream((d) => out.push(d));
	for (const c of chunks) stream.push(c);
	return out;
}

describe("AnswerStream", () => {
	it("streams the answer's text as it arrives, decoded, and nothing after its closing quote", () => {
		const reply = '{\n    "answer": "line one\\nsaid \\"hi\\" \\u00e9t\\u00e9"\n}';
		const whole = JSON.parse(reply).answer as string;
		// Every split point, including inside escapes and the opening.
		for (let cut = 1; cut < reply.length; cut++) {
			expect(streamed([reply.slice(0, cut), reply.slice(cut)]).join("")).toBe(whole);
		}
		expect(streamed([...reply]).join("")).toBe(whole);
	});

	it("streams nothing from a tool call", () => {
		expect(streamed(['{"to', 'ol": "read_file", "arguments": {"answer": "x"}}'])).toEqual([]);
	});
});
