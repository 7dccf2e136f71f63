import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../kernel/evidence/audit-types.js";
import { label } from "../../kernel/flow/label.js";
import { type ContextManifest, manifestDigest } from "./context-manifest.js";
import { MAX_CHAIN, ManifestChain, ManifestReader, type StepHeader, type StepItem } from "./context-manifest-delta.js";

const trusted = label("internal", "trusted", { kind: "system", ref: "runtime" });
const file = label("internal", "untrusted", { kind: "file", ref: "a.ts" });
const header = (step: number, factor = 1): StepHeader => ({ turn: 1, step, window: 8192, limit: 6553, tokens: 100 + step, count_method: "estimate", factor });

function verbatim(n: number, l = file, raw = 10): StepItem {
	return { ref: `m${n}`, role: n % 2 ? "assistant" : "tool", label: l, raw, call_ids: [`call_1_${n}_1`], disposition: "verbatim", why: "kept verbatim: within the context limit" };
}

/** Records each step's items as the keeper would, as audit records of one session. */
function recordSteps(steps: StepItem[][], factors: number[] = []): AuditRecord[] {
	const chain = new ManifestChain();
	return steps.map((items, i) => {
		const { data, digest } = chain.record(items, header(i + 1, factors[i] ?? 1));
		// Stored and read back as JSON, as the store does.
		return { seq: 10 + i, session: "s1", turn: 1, kind: "context.manifest", time: "", data: JSON.parse(JSON.stringify({ digest, ...data })) } as unknown as AuditRecord;
	});
}

describe("a step manifest recorded as what changed", () => {
	const system: StepItem = { ref: "m1", role: "system", label: trusted, raw: 50, disposition: "verbatim", why: "the system prompt: never summarised" };
	// A session that grows by two messages a step: each step keeps the same objects and adds two.
	const steps: StepItem[][] = [];
	let items: StepItem[] = [system];
	for (let s = 0; s < 40; s++) {
		items = [...items, verbatim(2 * s + 2), verbatim(2 * s + 3)];
		steps.push(items);
	}

	it("stays as small as the step, however long the history, and reads back whole", () => {
		const records = recordSteps(steps);
		const reader = new ManifestReader(records);
		const sizes = records.map((r) => JSON.stringify(r.data).length);
		// The tenth and the fortieth step record the same amount: a range of what was kept and two new items.
		expect(sizes[39]).toBe(sizes[9]);
		expect(records[39]!.data.parts).toEqual([[0, 79], expect.objectContaining({ ref: "m80" }), expect.objectContaining({ ref: "m81" })]);
		for (const [i, r] of records.entries()) {
			const read = reader.read(r)!;
			expect(read.digest_ok).toBe(true);
			expect(read.items.map((x) => x.ref)).toEqual(steps[i]!.map((x) => x.ref));
			expect(read.totals).toEqual({ verbatim: steps[i]!.length, summary: 0, summarised: 0, omitted: 0 });
			// Each item as a whole manifest lists it: tokens corrected, the label by index into the table.
			expect(read.items[1]).toEqual({ ref: "m2", role: "tool", label: 1, tokens: 10, call_ids: ["call_1_2_1"], disposition: "verbatim", why: "kept verbatim: within the context limit" });
			expect(read.labels).toEqual([trusted, file]);
		}
	});

	it("reads back what a whole manifest of the same items holds", () => {
		const [r] = recordSteps([steps[2]!]);
		const read = new ManifestReader([r!]).read(r!)!;
		const { digest: _, digest_ok: __, ...body } = read;
		const whole: ContextManifest = { ...(body as ContextManifest) };
		expect(whole).toEqual({
			purpose: "turn",
			turn: 1,
			step: 1,
			window: 8192,
			limit: 6553,
			tokens: 101,
			count_method: "estimate",
			labels: [trusted, file],
			items: steps[2]!.map((x, i) => ({ ref: x.ref, role: x.role, label: i === 0 ? 0 : 1, tokens: x.raw, ...(x.call_ids ? { call_ids: x.call_ids } : {}), disposition: x.disposition, why: x.why })),
			totals: { verbatim: 7, summary: 0, summarised: 0, omitted: 0 },
		});
		expect(manifestDigest(whole)).toMatch(/^[0-9a-f]{64}$/);
	});

	it("a new correction factor changes no item, only the tokens read back", () => {
		const records = recordSteps([steps[0]!, steps[1]!], [1, 1.5]);
		expect(records[1]!.data.parts).toHaveLength(3);
		const read = new ManifestReader(records).read(records[1]!)!;
		expect(read.items.map((x) => x.tokens)).toEqual([75, 15, 15, 15, 15]);
	});

	it("starts a whole manifest again after a chain of MAX_CHAIN links", () => {
		const long: StepItem[][] = [];
		let grown: StepItem[] = [system];
		for (let s = 0; s < MAX_CHAIN + 2; s++) {
			grown = [...grown, verbatim(s + 2)];
			long.push(grown);
		}
		const records = recordSteps(long);
		expect(records[0]!.data.base).toBeUndefined();
		expect(records[1]!.data.base).toBe(records[0]!.data.digest);
		expect(records[MAX_CHAIN]!.data.base).toBeUndefined();
		expect(records[MAX_CHAIN + 1]!.data.base).toBe(records[MAX_CHAIN]!.data.digest);
	});

	it("a changed or missing link anywhere before a record shows: not verified, or not rebuilt", () => {
		const records = recordSteps(steps.slice(0, 5));
		const parts = records[1]!.data.parts as object[];
		const tampered = records.map((r, i) => (i === 1 ? { ...r, data: { ...r.data, parts: [parts[0], { ...parts[1]!, why: "changed" }, parts[2]] } } : r)) as AuditRecord[];
		expect(new ManifestReader(tampered).read(tampered[4]!)!.items[3]!.why).toBe("changed");
		expect(new ManifestReader(tampered).read(tampered[4]!)!.digest_ok).toBe(false);
		expect(new ManifestReader(tampered).read(tampered[0]!)!.digest_ok).toBe(true);
		const gap = records.filter((_, i) => i !== 2);
		expect(new ManifestReader(gap).read(gap[3]!)).toBeUndefined();
		// Another session's record with the same digest is no link.
		const elsewhere = records.map((r, i) => (i === 0 ? { ...r, session: "s2" } : r));
		expect(new ManifestReader(elsewhere).read(elsewhere[3]!)).toBeUndefined();
	});

	it("still reads a manifest recorded whole, the way earlier versions did", () => {
		const whole: ContextManifest = { purpose: "turn", turn: 1, step: 1, window: 100, limit: 80, tokens: 5, count_method: "estimate", labels: [trusted], items: [{ ref: "m1", role: "system", disposition: "verbatim", why: "w", label: 0, tokens: 5 }], totals: { verbatim: 1, summary: 0, summarised: 0, omitted: 0 } };
		const record = { seq: 1, session: "s1", turn: 1, kind: "context.manifest", time: "", data: { digest: manifestDigest(whole), ...whole } } as unknown as AuditRecord;
		expect(new ManifestReader([record]).read(record)).toEqual({ ...whole, digest: manifestDigest(whole), digest_ok: true });
	});
});
