import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compactionSection } from "./bench-table.js";
import type { CompactionBenchReport } from "./bench-types.js";
import { benchCompaction } from "./compaction-bench.js";

describe("benchCompaction at tiny sizes", () => {
	let dir: string;
	let report: CompactionBenchReport;
	const progress: string[] = [];

	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), "warden-compaction-bench-test-"));
		report = await benchCompaction({ rounds: 2, warmupRounds: 1, stepsPerRound: 2, fileBytes: 256, tempDir: dir, onProgress: (line) => progress.push(line) });
	}, 60_000);

	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("times each measured compaction and its summarising call alone, the figures taken from the medians", () => {
		expect(report).toMatchObject({ rounds: 2, warmupRounds: 1, stepsPerRound: 2, fileBytes: 256 });
		for (const timing of [report.modelCall, report.compaction, report.compactionInMemory]) {
			expect(timing.samplesUs).toHaveLength(2);
			for (const sample of timing.samplesUs) expect(sample).toBeGreaterThan(0);
		}
		expect(report.addedUs).toBeCloseTo(report.compaction.medianUs - report.modelCall.medianUs, 6);
		expect(report.ratio).toBeCloseTo(report.compaction.medianUs / report.modelCall.medianUs, 6);
		// Each compaction summarised the round's turn: its task's steps (the task itself is kept), and the earlier summary from the second on.
		expect(report.summarised).toBeGreaterThanOrEqual(2 * 2);
		expect(progress.every((line) => line.startsWith("compaction"))).toBe(true);
	});

	it("renders a table row per variant with the added time, and leaves no directory behind", () => {
		const lines = compactionSection(report);
		expect(lines[0]).toContain("vs the summarising model call alone");
		expect(lines.some((l) => l.includes("Session.compact(), SQLite store"))).toBe(true);
		expect(lines.at(-1)).toMatch(/^ {2}added per compaction: /);
		expect(readdirSync(dir)).toEqual([]);
	});

	it("refuses a size that leaves nothing to summarise", async () => {
		await expect(benchCompaction({ rounds: 1, warmupRounds: 0, stepsPerRound: 0, fileBytes: 10, tempDir: dir, onProgress: () => {} })).rejects.toThrow("compactionSteps must be a whole number >= 1, got 0");
	});
});
