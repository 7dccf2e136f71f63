import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultWardenBin } from "./cli-start.js";
import { benchConcurrency, percentile, verdict } from "./concurrency-bench.js";

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

describe("verdict", () => {
	const rows: { name: string; v: { coresBusy?: number; cpuUs?: number }; held: string | undefined }[] = [
		{ name: "cores with time to spare: waiting", v: { coresBusy: 0.6, cpuUs: 1_200_000 }, held: "waiting" },
		{ name: "busy cores, mostly its own processes: CPU", v: { coresBusy: 0.98, cpuUs: 1_900_000 }, held: "cpu" },
		{ name: "busy cores, mostly others' processes: other work", v: { coresBusy: 1, cpuUs: 400_000 }, held: "other work" },
		{ name: "no CPU figures (off Linux): no verdict", v: {}, held: undefined },
	];
	for (const { name, v, held } of rows) {
		it(name, () => {
			// One second on two cores: 2 CPU-seconds would be all of them.
			expect(verdict({ perSecond: 1, wallUs: 1_000_000, ...v }, 2)).toBe(held);
		});
	}
});

describe("benchConcurrency", () => {
	it("runs one process, then several at once on one state dir, and reports their rates, ratio and lock waits", async () => {
		const tempDir = mkdtempSync(join(tmpdir(), "warden-bench-conc-test-"));
		dirs.push(tempDir);
		const lines: string[] = [];
		const report = await benchConcurrency({ wardenBin: defaultWardenBin(), tempDir, processes: 2, calls: 2, startRuns: 1, onProgress: (l) => lines.push(l) });
		expect(report).toMatchObject({ processes: 2, callsPerProcess: 2, cores: availableParallelism() });
		expect(report.single.perSecond).toBeGreaterThan(0);
		expect(report.concurrent.perSecond).toBeGreaterThan(0);
		expect(report.ratio).toBeCloseTo(report.concurrent.perSecond / report.single.perSecond, 10);
		expect(report.start.wallUs).toBeGreaterThan(0);
		// Every write transaction of the concurrent run was timed, waits and holds: at least one per governed call.
		expect(report.lockWaits).toBeGreaterThanOrEqual(4);
		expect(report.lockWaitsOver1ms).toBeLessThanOrEqual(report.lockWaits);
		expect(report.lockWaitMaxUs).toBeGreaterThanOrEqual(report.lockWaitP99Us);
		expect(report.lockHoldP99Us).toBeGreaterThanOrEqual(report.lockHoldMedianUs);
		if (existsSync("/proc/self/stat")) {
			// The children's CPU is measured, so the ceiling and what holds the ratio are stated.
			for (const v of [report.single, report.concurrent]) {
				expect(v.cpuPerCallUs).toBeCloseTo(v.cpuUs! / (v === report.single ? 2 : 4), 6);
				expect(v.coresBusy).toBeGreaterThanOrEqual(0);
				expect(v.coresBusy).toBeLessThanOrEqual(1);
			}
			expect(report.start.cpuUs).toBeGreaterThan(0);
			expect(report.ceilingPerSecond).toBeCloseTo((report.cores * 1e6) / report.concurrent.cpuPerCallUs!, 6);
			expect(report.ceilingRatio).toBeCloseTo((report.cores * report.single.cpuPerCallUs!) / report.concurrent.cpuPerCallUs!, 6);
			expect(report.heldBy).toBe(verdict(report.concurrent, report.cores));
		}
		expect(lines[0]).toMatch(/^concurrency: 1 run\(s\) making no call, 2 governed calls in 1 process, then in each of 2 processes at once$/);
		// What it made is removed.
		expect(readdirSync(tempDir)).toEqual([]);
	}, 60_000);
});
