import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memorySearchSection } from "./bench-table.js";
import type { MemorySearchReport } from "./bench-types.js";
import { benchMemorySearch } from "./memory-search-bench.js";

describe("benchMemorySearch at tiny sizes", () => {
	let dir: string;
	let report: MemorySearchReport;
	const progress: string[] = [];

	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), "warden-memory-search-bench-test-"));
		report = await benchMemorySearch({ records: 400, queries: 5, rounds: 2, warmupRounds: 1, limit: 5, tempDir: dir, onProgress: (line) => progress.push(line) });
	}, 60_000);

	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("times both over the same queries, the ratio and goal from the medians, and finds records", () => {
		expect(report).toMatchObject({ records: 400, queries: 5, rounds: 2, warmupRounds: 1, limit: 5 });
		for (const timing of [report.plainFts, report.memorySearch]) {
			expect(timing.samplesUs).toHaveLength(10);
			for (const sample of timing.samplesUs) expect(sample).toBeGreaterThan(0);
		}
		expect(report.ratio).toBeCloseTo(report.memorySearch.medianUs / report.plainFts.medianUs, 6);
		expect(report.goalMet).toBe(report.memorySearch.medianUs <= 5000 && report.ratio <= 1.5);
		expect(report.meanPlainHits).toBeGreaterThan(0);
		expect(report.meanHits).toBeGreaterThan(0);
		expect(report.meanHits).toBeLessThanOrEqual(5);
		expect(progress[0]).toBe("memory search: 400 records written");
	});

	it("renders a row per variant with the goal, and leaves no directory behind", () => {
		const lines = memorySearchSection(report);
		expect(lines[0]).toMatch(/^Memory search: 400 records, 5 two-word queries, top 5/);
		expect(lines.some((l) => l.includes("plain FTS5 MATCH ordered by bm25 (yardstick)"))).toBe(true);
		expect(lines.at(-1)).toMatch(/^ {2}goal p50 ≤ 5 ms and ≤ 1\.5× plain FTS5: (met|NOT met)$/);
		expect(readdirSync(dir)).toEqual([]);
	});
});
