import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CeilingIndex } from "./ceiling-index.js";
import { RIGHTS, type Right } from "./resource.js";
import { ceilingPermits, type TaskCeiling, taskCeiling } from "./task-ceiling.js";

describe("CeilingIndex", () => {
	it("answers as ceilingPermits does, over random ceilings and requests", () => {
		const kind = fc.constantFrom("fs", "shell", "net", "llm", "human");
		const glob = fc.array(fc.constantFrom("a", "b", "/", "*", "**", "?"), { minLength: 1, maxLength: 5 }).map((t) => t.join(""));
		const scope = fc.record({ resource: fc.tuple(kind, glob).map(([k, g]) => `${k}:${g}`), rights: fc.subarray([...RIGHTS], { minLength: 1 }) as fc.Arbitrary<Right[]> });
		const spec = fc.record({ effects: fc.option(fc.array(scope, { maxLength: 30 }), { nil: null }), exclude: fc.array(scope, { maxLength: 6 }) });
		const request = fc.record({
			resource: fc.oneof(
				{ weight: 9, arbitrary: fc.tuple(kind, fc.array(fc.constantFrom("a", "b", "/"), { maxLength: 5 })).map(([k, t]) => `${k}:${t.join("")}`) },
				{ weight: 1, arbitrary: fc.constantFrom("mcp:a", "a") },
			),
			right: fc.constantFrom(...RIGHTS),
		});
		const answers = new Map<boolean, number>();
		fc.assert(
			fc.property(spec, fc.array(request, { minLength: 1, maxLength: 15 }), (s, requests) => {
				const ceiling = taskCeiling(s);
				const index = new CeilingIndex(ceiling);
				for (const r of requests) {
					const expected = ceilingPermits(ceiling, r);
					answers.set(expected, (answers.get(expected) ?? 0) + 1);
					expect(index.permits(r)).toBe(expected);
				}
			}),
			{ seed: 1206, numRuns: 300 },
		);
		expect(answers.get(true) ?? 0).toBeGreaterThan(300);
		expect(answers.get(false) ?? 0).toBeGreaterThan(300);
	});

	it("fails where the scan fails on a hand-built ceiling whose scope does not parse", () => {
		const ceiling: TaskCeiling = { ...taskCeiling(), manifest: { ...taskCeiling().manifest, effects: [{ resource: "fs:src/**", rights: ["read"] }, { resource: "bogus", rights: ["read"] }] } };
		const index = new CeilingIndex(ceiling);
		for (const r of [
			{ resource: "fs:src/a", right: "read" as const },
			{ resource: "fs:b", right: "read" as const },
		]) {
			let scanned: unknown;
			try {
				scanned = ceilingPermits(ceiling, r);
			} catch (err) {
				scanned = String(err);
			}
			expect(scanned, r.resource).toEqual(r.resource === "fs:src/a" ? true : expect.stringContaining("must start with fs:"));
			if (typeof scanned === "boolean") expect(index.permits(r)).toBe(scanned);
			else expect(() => index.permits(r)).toThrow("must start with fs:");
		}
	});
});
