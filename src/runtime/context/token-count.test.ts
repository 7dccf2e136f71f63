import { describe, expect, it } from "vitest";
import { CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS, TokenCounter } from "./token-count.js";

describe("TokenCounter", () => {
	it("estimates from characters before any report", () => {
		const counter = new TokenCounter({});
		expect(counter.message({ role: "user", content: "x".repeat(400) })).toBe(400 / CHARS_PER_TOKEN + MESSAGE_OVERHEAD_TOKENS);
		expect(counter.source).toEqual({ method: "estimate", factor: 1, reports: 0 });
	});

	it("corrects the estimate by the latest reported usage, within bounds", () => {
		const counter = new TokenCounter({});
		const messages = [{ role: "user" as const, content: "y".repeat(396) }];
		const raw = counter.request(messages, []);
		expect(raw).toBe(103);
		counter.observe(raw, 206);
		expect(counter.request(messages, [])).toBe(206);
		expect(counter.source).toMatchObject({ factor: 2, reports: 1 });
		// One absurd report cannot blind compaction: the factor stays within 0.25…4.
		counter.observe(raw, 1_000_000);
		expect(counter.source.factor).toBe(4);
		counter.observe(raw, 1);
		expect(counter.source.factor).toBe(0.25);
		// Nothing to learn from an empty request or report.
		counter.observe(0, 50);
		counter.observe(10, 0);
		expect(counter.source.reports).toBe(3);
	});

	it("uses the provider's tokenizer where it has one", () => {
		const counter = new TokenCounter({ countTokens: (text) => text.split(" ").length });
		expect(counter.message({ role: "user", content: "one two three" })).toBe(3 + MESSAGE_OVERHEAD_TOKENS);
		expect(counter.source.method).toBe("tokenizer");
	});

	it("counts tool calls' names and arguments, and a tool result's name", () => {
		const counter = new TokenCounter({});
		const bare = counter.message({ role: "assistant", content: "" });
		const withCall = counter.message({ role: "assistant", content: "", tool_calls: [{ id: "call_1_1_1", name: "read_file", arguments: JSON.stringify({ path: "a".repeat(80) }) }] });
		expect(withCall).toBeGreaterThan(bare + 20);
		expect(counter.message({ role: "tool", tool_call_id: "c", name: "read_file", content: "" })).toBe(MESSAGE_OVERHEAD_TOKENS + 3);
	});
});
