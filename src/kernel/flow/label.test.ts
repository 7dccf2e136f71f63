import { describe, expect, it } from "vitest";
import { join, label, MAX_SOURCES, type SourceRef } from "./label.js";

const file = (n: number): SourceRef => ({ kind: "file", ref: `f${n}` });
const many = (from: number, count: number) => label("internal", "untrusted", ...Array.from({ length: count }, (_, i) => file(from + i)));

describe("join keeps the count of left-out sources finite", () => {
	it("counts the references a join leaves out", () => {
		const joined = join(many(0, MAX_SOURCES), many(100, 3));
		expect(joined.sources).toHaveLength(MAX_SOURCES);
		expect(joined.omitted).toBe(3);
	});

	it("does not add up the left-out counts of a label and one made from it", () => {
		// A session's context label is joined with every message's, each made from the context: 3,000 calls of that.
		let context = many(0, MAX_SOURCES + 4);
		expect(context.omitted).toBe(4);
		for (let call = 0; call < 3000; call++) context = join(context, join(context, label("public", "trusted", { kind: "model", ref: "m" })));
		// Summed, the count doubled per call and was Infinity by call 1,024, which the store refuses to write.
		expect(Number.isFinite(context.omitted)).toBe(true);
		expect(context.omitted).toBe(4 + 3000);
	});

	it("adds one per genuinely new source past the limit", () => {
		let context = many(0, MAX_SOURCES);
		for (let n = 0; n < 50; n++) context = join(context, label("internal", "untrusted", file(1000 + n)));
		expect(context.omitted).toBe(50);
		expect(context.sensitivity).toBe("internal");
		expect(context.integrity).toBe("untrusted");
	});

	it("leaves omitted off a label that lost nothing", () => {
		expect(join(many(0, 2), many(0, 2))).not.toHaveProperty("omitted");
	});
});
