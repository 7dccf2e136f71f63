import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionBenchReport } from "./bench-types.js";
import { sessionSection } from "./bench-table.js";
import { benchSession } from "./session-bench.js";

describe("the long-session benchmark at a tiny size", () => {
	let tempDir: string;
	let report: SessionBenchReport;
	const progress: string[] = [];

	beforeAll(async () => {
		tempDir = mkdtempSync(join(tmpdir(), "warden-session-bench-test-"));
		report = await benchSession({ calls: 12, callsPerTurn: 3, window: 3, warmupCalls: 3, tempDir, onProgress: (line) => progress.push(line) });
	}, 60_000);

	afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

	it("times the first and last windows of one session and compares them", () => {
		expect(report.calls).toBe(12);
		expect(report.first).toMatchObject({ fromCall: 1, toCall: 3 });
		expect(report.last).toMatchObject({ fromCall: 10, toCall: 12 });
		for (const w of [report.first, report.last]) {
			expect(w.meanUs).toBeGreaterThan(0);
			expect(w.medianUs).toBeGreaterThan(0);
			expect(w.cpuUs).toBeGreaterThanOrEqual(0);
		}
		expect(report.cpuRatio).toBeCloseTo(report.last.cpuUs / report.first.cpuUs, 9);
		expect(report.ratio).toBeCloseTo(report.last.meanUs / report.first.meanUs, 9);
		expect(report.medianRatio).toBeCloseTo(report.last.medianUs / report.first.medianUs, 9);
	});

	it("leaves the session's evidence: records for every governed call", () => {
		// Each governed call leaves at least its decision and its effect in the chain.
		expect(report.auditRecords).toBeGreaterThanOrEqual(2 * report.calls);
	});

	it("measures memory after a collection at both points", () => {
		const m = report.memory;
		expect(m.rssAfterFirstBytes).toBeGreaterThan(0);
		expect(m.rssGrowthBytes).toBe(m.rssAtEndBytes - m.rssAfterFirstBytes);
		expect(m.retainedHeapBytesPerCall).toBeCloseTo((m.heapAtEndBytes - m.heapAfterFirstBytes) / 9, 6);
	});

	it("reports progress and prints as a table section", () => {
		expect(progress.some((line) => line.includes("warm-up session of 3 calls"))).toBe(true);
		expect(progress.some((line) => line.includes("12 calls in 4 turns"))).toBe(true);
		const lines = sessionSection(report);
		expect(lines[0]).toMatch(/^A long session: 12 governed read_file\/list_dir calls in turns of 3/);
		expect(lines.some((line) => line.includes("1–3 (yardstick)"))).toBe(true);
		expect(lines.some((line) => line.includes("10–12"))).toBe(true);
	});

	it("refuses sizes that do not divide into turns or windows", async () => {
		await expect(benchSession({ calls: 10, callsPerTurn: 3, window: 3, warmupCalls: 0, tempDir, onProgress: () => {} })).rejects.toThrow(/multiple of calls per turn/);
		await expect(benchSession({ calls: 4, callsPerTurn: 2, window: 3, warmupCalls: 0, tempDir, onProgress: () => {} })).rejects.toThrow(/at most half the calls/);
	});
});
