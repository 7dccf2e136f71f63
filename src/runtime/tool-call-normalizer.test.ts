import { describe, expect, it } from "vitest";
import { historyCall, normalizeToolCalls } from "./tool-call-normalizer.js";

describe("normalizeToolCalls", () => {
	it("gives each call Warden's id and keeps the provider's beside it", () => {
		const [a, b] = normalizeToolCalls([{ id: "aB3dE5fG7", name: "read_file", arguments: '{"path":"a"}' }, { id: "Zx9Yw8Vu7", name: "glob", arguments: { pattern: "*" } }], 2, 3);
		expect(a).toEqual({ id: "call_2_3_1", providerId: "aB3dE5fG7", name: "read_file", args: { path: "a" }, rawArguments: '{"path":"a"}' });
		expect(historyCall(b!)).toEqual({ id: "call_2_3_2", provider_id: "Zx9Yw8Vu7", name: "glob", arguments: '{"pattern":"*"}' });
	});

	it.each([
		["no id on one call", [{ id: "x1", name: "a", arguments: "{}" }, { name: "b", arguments: "{}" }]],
		["an empty id", [{ id: "", name: "a", arguments: "{}" }]],
		["one id on two calls", [{ id: "same", name: "a", arguments: "{}" }, { id: "same", name: "b", arguments: "{}" }]],
	])("keeps no provider id for a response with %s: results could not be paired with calls by it", (_what, calls) => {
		const proposals = normalizeToolCalls(calls, 1, 1);
		expect(proposals.map((p) => p.providerId)).toEqual(calls.map(() => undefined));
		expect(proposals.map(historyCall).every((c) => !("provider_id" in c))).toBe(true);
	});

	it("reports arguments that are not JSON, keeping the raw text", () => {
		expect(normalizeToolCalls([{ id: "k", name: "a", arguments: "{oops" }], 1, 1)[0]).toMatchObject({ id: "call_1_1_1", providerId: "k", args: undefined, rawArguments: "{oops" });
	});
});
