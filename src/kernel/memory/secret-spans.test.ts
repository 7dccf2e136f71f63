import { describe, expect, it } from "vitest";
import { findSecretSpans, MAX_SECRET_SPANS, recordText, spanValues } from "./secret-spans.js";

describe("secret spans", () => {
	it("finds every occurrence of each known value, the longer of two overlapping values kept whole", () => {
		const text = "code 7Q-ALPHA-991, again 7Q-ALPHA-991; key abcdef-123456 and abcdef";
		const spans = findSecretSpans(text, ["abcdef", "7Q-ALPHA-991", "abcdef-123456"]);
		expect(spans.map(([s, e]) => text.slice(s, e))).toEqual(["7Q-ALPHA-991", "7Q-ALPHA-991", "abcdef-123456", "abcdef"]);
		expect(spanValues(text, spans)).toEqual(["7Q-ALPHA-991", "abcdef-123456", "abcdef"]);
	});

	it("indexes the text recall observes: the title, a newline, the content", () => {
		const record = { title: "launch", content: "the launch code is 7Q-ALPHA-991" };
		const text = recordText(record);
		expect(spanValues(text, findSecretSpans(text, ["7Q-ALPHA-991"]))).toEqual(["7Q-ALPHA-991"]);
	});

	it("stored offsets that do not fit the text give nothing, and no more than the bound is read", () => {
		const text = "0123456789";
		expect(spanValues(text, [[0, 11], [-1, 3], [4, 4], [5, 2], [1.5, 3], ["0", "3"], [1], null, [2, 8]])).toEqual(["234567"]);
		expect(spanValues(text, "0,3")).toEqual([]);
		expect(spanValues(text, undefined)).toEqual([]);
		const many = Array.from({ length: MAX_SECRET_SPANS + 5 }, (_, i) => [0, 1 + (i % 9)]);
		expect(spanValues(text, many).length).toBeLessThanOrEqual(9);
		expect(findSecretSpans("x".repeat(MAX_SECRET_SPANS * 2), ["x"]).length).toBe(MAX_SECRET_SPANS);
	});
});
