import { describe, expect, it } from "vitest";
import { label } from "../../kernel/flow/label.js";
import { type ContextManifest, expandRefs, LabelTable, manifestDigest, manifestTotals, refRanges, unaccounted } from "./context-manifest.js";

describe("the manifest's ranges", () => {
	it.each([
		[[4, 5, 6, 7, 9], "m4-m7,m9"],
		[[9, 4, 5, 5], "m4-m5,m9"],
		[[1], "m1"],
		[[], ""],
	])("%j is written %j and read back", (numbers, text) => {
		expect(refRanges(numbers)).toBe(text);
		expect(expandRefs(text)).toEqual([...new Set(numbers)].sort((a, b) => a - b));
	});

	it("ignores what is not a range", () => {
		expect(expandRefs("m2,summary 3,x-m4,m6-m7")).toEqual([2, 6, 7]);
	});
});

describe("a manifest", () => {
	const items: ContextManifest["items"] = [
		{ ref: "m1", role: "system", disposition: "verbatim", why: "the system prompt", label: 0 },
		{ ref: "summary 2", role: "user", disposition: "summary", why: "s", label: 1, covers: "m2-m5,m7", covered: 5, compaction: 2 },
		{ ref: "m6", role: "user", disposition: "verbatim", why: "the current task", label: 0 },
		{ ref: "m8", role: "tool", disposition: "verbatim", why: "recent", label: 1 },
		{ ref: "file /p/AGENTS.md", disposition: "omitted", why: "cap", label: 0 },
	];
	const manifest: ContextManifest = { purpose: "turn", turn: 1, step: 3, window: 100, limit: 80, tokens: 50, count_method: "estimate", labels: [label("internal", "trusted"), label("secret", "untrusted")], items, totals: manifestTotals(items) };

	it("totals each disposition; summarised counts the stored messages the summaries stand for", () => {
		expect(manifest.totals).toEqual({ verbatim: 3, summary: 1, summarised: 5, omitted: 1 });
	});

	it("names what it leaves unaccounted for", () => {
		expect(unaccounted(manifest, 8)).toEqual([]);
		expect(unaccounted(manifest, 10)).toEqual(["m9", "m10"]);
		expect(unaccounted({ items: items.filter((i) => i.disposition !== "summary") }, 8)).toEqual(["m2", "m3", "m4", "m5", "m7"]);
	});

	it("has a digest that changes with any item", () => {
		const digest = manifestDigest(manifest);
		expect(digest).toMatch(/^[0-9a-f]{64}$/);
		expect(manifestDigest({ ...manifest })).toBe(digest);
		expect(manifestDigest({ ...manifest, items: items.map((i) => (i.ref === "m8" ? { ...i, label: 0 } : i)) })).not.toBe(digest);
	});

	it("keeps each distinct label once", () => {
		const table = new LabelTable();
		const a = label("internal", "trusted", { kind: "file", ref: "a" });
		expect([table.of(a), table.of(label("secret", "trusted")), table.of({ ...a, sources: [...a.sources] })]).toEqual([0, 1, 0]);
		expect(table.labels).toHaveLength(2);
	});
});
