import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultWardenBin } from "./cli-start.js";
import { benchConcurrency, percentile } from "./concurrency-bench.js";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("percentile", () => {
	it("is the nearest-rank value of sorted samples, and 0 for none", () => {
		const values = Array.from({ length: 100 }, (_, i) => i + 1);
		expect(percentile(values, 0.99)).toBe(99);
		expect(percentile(values, 0.5)).toBe(50);
		expect(percentile([7], 0.99)).toBe(7);
		expect(percentile([], 0.99)).toBe(0);
	});
});

describe("benchConcurrency", () => {
	it("runs one process, then several at once on one state dir, and reports their rates, ratio and lock waits", async () => {
		const tempDir = mkdtempSync(join(tmpdir(), "warden-bench-conc-test-"));
		dirs.push(tempDir);
		const lines: string[] = [];
		const report = await benchConcurrency({ wardenBin: defaultWardenBin(), tempDir, processes: 2, calls: 2, onProgress: (l) => lines.push(l) });
		expect(report).toMatchObject({ processes: 2, callsPerProcess: 2 });
		expect(report.single.perSecond).toBeGreaterThan(0);
		expect(report.concurrent.perSecond).toBeGreaterThan(0);
		expect(report.ratio).toBeCloseTo(report.concurrent.perSecond / report.single.perSecond, 10);
		// Every write transaction of both runs was timed: at least one per governed call.
		expect(report.lockWaits).toBeGreaterThanOrEqual(4);
		expect(report.lockWaitMaxUs).toBeGreaterThanOrEqual(report.lockWaitP99Us);
		expect(lines[0]).toMatch(/^concurrency: 2 governed calls in 1 process, then in each of 2 processes at once$/);
		// What it made is removed.
		expect(readdirSync(tempDir)).toEqual([]);
	}, 60_000);
});
