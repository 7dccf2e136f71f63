import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tuiSection } from "./bench-table.js";
import type { TuiBenchReport } from "./bench-types.js";
import { defaultWardenBin } from "./cli-start.js";
import { benchTui, floodCommand } from "./tui-bench.js";

describe("floodCommand", () => {
	it.each([100, 250, 10_000])("prints exactly %i numbered lines", (lines) => {
		const out = execFileSync("sh", ["-c", floodCommand(lines)], { encoding: "utf8" }).trimEnd().split("\n");
		expect(out).toHaveLength(lines);
		expect(out[lines - 1]).toBe(String(lines));
	});
});

describe("benchTui with tiny sizes", () => {
	let tempDir: string;
	let report: TuiBenchReport | undefined;
	const progress: string[] = [];

	beforeAll(async () => {
		tempDir = mkdtempSync(join(tmpdir(), "warden-tui-bench-test-"));
		report = await benchTui({ wardenBin: defaultWardenBin(), tempDir, runs: 2, warmupRuns: 0, lines: 300, keystrokes: 3, onProgress: (l) => progress.push(l) });
	}, 120_000);
	afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

	it("times both starts, each run, and gives their ratio", () => {
		expect(report).toBeDefined();
		const r = report as TuiBenchReport;
		expect(r.version.samplesUs).toHaveLength(2);
		expect(r.readyPrompt.samplesUs).toHaveLength(2);
		expect(r.readyRatio).toBeCloseTo(r.readyPrompt.medianUs / r.version.medianUs, 6);
		// The first prompt comes before the whole screen, never after it.
		expect(r.screenReady?.samplesUs).toHaveLength(2);
		expect(r.screenReady?.medianUs).toBeGreaterThanOrEqual(r.readyPrompt.medianUs);
		expect(progress[0]).toMatch(/0 warm-up and 2 measured starts/);
	});

	it("times every idle key, and at least one key while the output went through", () => {
		const r = report as TuiBenchReport;
		expect(r.idleEcho.samples).toBe(3);
		expect(r.loadedEcho.samples).toBeGreaterThanOrEqual(1);
		expect(r.loadedEcho.samples).toBeLessThanOrEqual(3);
		expect(r.idleEcho.p50Ms).toBeLessThanOrEqual(r.idleEcho.p95Ms);
		expect(r.idleEcho.p95Ms).toBeLessThanOrEqual(r.idleEcho.maxMs);
		expect(r.lines).toBe(300);
	});

	it("adds its rows to the bench table", () => {
		const table = tuiSection(report as TuiBenchReport);
		expect(table.some((l) => l.includes("warden, spawn to the ready prompt"))).toBe(true);
		expect(table.some((l) => l.includes("warden, spawn to the whole screen"))).toBe(true);
		expect(table.some((l) => l.includes("under 300 lines of output"))).toBe(true);
	});
});
