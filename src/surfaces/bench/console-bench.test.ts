import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleBenchReport, benchConsole, latency } from "./console-bench.js";
import { consoleSection } from "./console-bench-table.js";

describe("latency", () => {
	it("takes the p50 and p95 of the samples by rank", () => {
		const t = latency(Array.from({ length: 20 }, (_, i) => 20 - i));
		expect(t).toEqual({ samples: 20, p50Ms: 10, p95Ms: 19, maxMs: 20 });
	});
});

describe("benchConsole with tiny sizes", () => {
	let tempDir: string;
	let report: ConsoleBenchReport;
	const progress: string[] = [];

	beforeAll(async () => {
		tempDir = mkdtempSync(join(tmpdir(), "warden-console-bench-test-"));
		report = await benchConsole({ events: 5, intervalMs: 5, smallRecords: 100, largeRecords: 1000, pageRounds: 2, warmupRounds: 1, tempDir, onProgress: (l) => progress.push(l) });
	}, 120_000);
	afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

	it("times every event from its append in the other process to its arrival", () => {
		expect(report.feed.samples).toBe(5);
		expect(report.append.samples).toBe(5);
		// The arrival comes after the append began, and after it committed.
		expect(report.feed.maxMs).toBeGreaterThan(0);
		expect(report.feedRatio).toBeCloseTo(report.feed.p95Ms / report.append.p95Ms, 6);
		expect(report.feedGoalMet).toBe(report.feed.p95Ms <= 100);
	});

	it("times the audit pages of both chains and gives their ratio", () => {
		expect(report.smallPage.samplesUs).toHaveLength(2);
		expect(report.largePage.samplesUs).toHaveLength(2);
		expect(report.pageRatio).toBeCloseTo(report.largePage.medianUs / report.smallPage.medianUs, 6);
		expect(progress).toEqual(["console: feed latency over 5 events appended by another process", "console: audit pages at 100 and 1,000 records"]);
	});

	it("adds its rows to the bench table", () => {
		const lines = consoleSection(report);
		expect(lines.some((l) => l.includes("append start to SSE arrival"))).toBe(true);
		expect(lines.some((l) => l.includes("1,000 records"))).toBe(true);
	});
});
