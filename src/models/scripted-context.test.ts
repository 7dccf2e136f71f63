import { describe, expect, it } from "vitest";
import { ScriptedModel, scriptedSummary } from "./scripted.js";

const COMPACTION = { purpose: "compaction" as const, tools: [] };

describe("a scripted plan's context", () => {
	it("reports the plan's context window; none without one", () => {
		expect(ScriptedModel.fromPlan({ context_window: 2048, steps: [] }, "p").contextWindow).toBe(2048);
		expect(ScriptedModel.fromPlan({ steps: [] }, "p").contextWindow).toBeUndefined();
	});

	it("answers compaction requests apart from its steps: the plan's summaries in order, then its own", async () => {
		const model = ScriptedModel.fromPlan({ summaries: ["first summary"], steps: [{ text: "step one" }, { text: "step two" }] }, "p");
		const signal = new AbortController().signal;
		const messages = [
			{ role: "system" as const, content: "sys" },
			{ role: "user" as const, content: "do the thing\nwith detail" },
			{ role: "assistant" as const, content: "", tool_calls: [{ id: "call_1_1_1", name: "read_file", arguments: "{}" }] },
			{ role: "tool" as const, tool_call_id: "call_1_1_1", name: "read_file", content: "x".repeat(500) },
			{ role: "user" as const, content: "summarise" },
		];
		expect((await model.complete({ messages: [], tools: [] }, signal)).text).toBe("step one");
		expect((await model.complete({ messages, ...COMPACTION }, signal)).text).toBe("first summary");
		const own = (await model.complete({ messages, ...COMPACTION }, signal)).text;
		expect(own).toBe(scriptedSummary(messages));
		expect(own).toBe("Summary of 3 message(s):\n- user: do the thing\n- assistant called read_file (call_1_1_1)\n- read_file call_1_1_1 answered 500 characters");
		// The steps were not consumed by the summaries.
		expect((await model.complete({ messages: [], tools: [] }, signal)).text).toBe("step two");
	});

	it.each([
		[{ context_window: 0, steps: [] }, "context_window must be a positive whole number of tokens, got 0"],
		[{ context_window: "big", steps: [] }, "context_window must be a positive whole number of tokens"],
		[{ summaries: [1], steps: [] }, "summaries must be a list of strings"],
	])("refuses %j in one line", (plan, message) => {
		expect(() => ScriptedModel.fromPlan(plan, "p")).toThrow(message);
	});
});
