import { describe, expect, it } from "vitest";
import { ACP_ANSWERER, RELEASE_OPTIONS, releaseAnswer, TOOL_OPTIONS, toolAnswer } from "./permission-options.js";

describe("ACP permission answers as approvals, one row per option", () => {
	const rows: [string, unknown][] = [
		["allow_once", { kind: "allow_once", by: ACP_ANSWERER }],
		["allow_always", { kind: "always_allow", by: ACP_ANSWERER }],
		["reject_once", { kind: "deny", by: ACP_ANSWERER }],
		["reject_always", { kind: "always_deny", by: ACP_ANSWERER }],
	];
	it("offers exactly the four kinds, each once, id equal to kind", () => {
		expect(TOOL_OPTIONS.map((r) => [r.option.optionId, r.option.kind])).toEqual(rows.map(([id]) => [id, id]));
	});
	for (const [optionId, answer] of rows) {
		it(`${optionId} → ${JSON.stringify(answer)}`, () => {
			expect(toolAnswer({ outcome: "selected", optionId })).toEqual(answer);
		});
	}
	it("a cancelled request, or an option never offered, refuses", () => {
		expect(toolAnswer({ outcome: "cancelled" })).toBe(false);
		expect(toolAnswer({ outcome: "selected", optionId: "allow_everything" })).toBe(false);
	});
	it("an exact release offers only the one-shot answers, and only allow_once releases", () => {
		expect(RELEASE_OPTIONS.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
		expect(releaseAnswer({ outcome: "selected", optionId: "allow_once" })).toBe(true);
		expect(releaseAnswer({ outcome: "selected", optionId: "reject_once" })).toBe(false);
		expect(releaseAnswer({ outcome: "selected", optionId: "allow_always" })).toBe(false);
		expect(releaseAnswer({ outcome: "cancelled" })).toBe(false);
	});
});
