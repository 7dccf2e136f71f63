import { describe, expect, it } from "vitest";
import { ModelError } from "./provider.js";
import { ReplayModel } from "./replay-model.js";

describe("ReplayModel and compaction", () => {
	it("refuses a compaction request without using a recorded response, so the turn's answers stay in step", async () => {
		const model = new ReplayModel("scripted", [{ turn: 1, step: 1, response: { text: "done", toolCalls: [] } }]);
		model.beginTurn(1);
		const signal = new AbortController().signal;
		const compaction = model.complete({ messages: [{ role: "user", content: "summarise" }], tools: [], purpose: "compaction" }, signal);
		await expect(compaction).rejects.toThrow(ModelError);
		await expect(compaction).rejects.toThrow("not compaction requests");
		expect(model.usage(1)).toEqual({ used: 0, recorded: 1 });
		expect((await model.complete({ messages: [], tools: [] }, signal)).text).toBe("done");
	});
});
