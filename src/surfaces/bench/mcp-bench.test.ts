import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpSection } from "./bench-table.js";
import { benchMcpRoundTrip } from "./mcp-bench.js";

describe("benchMcpRoundTrip at tiny sizes", () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), "warden-mcp-bench-test-"));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("times both variants in the same run, reports the ratio and the goal, and removes its directory", async () => {
		const report = await benchMcpRoundTrip({ calls: 2, rounds: 2, warmupRounds: 0, tempDir: dir, onProgress: () => {} });
		expect(report.bare.samplesUs).toHaveLength(2);
		expect(report.governed.samplesUs).toHaveLength(2);
		expect(report.ratio).toBeCloseTo(report.governed.medianUs / report.bare.medianUs);
		expect(report.overheadUs).toBeCloseTo(report.governed.medianUs - report.bare.medianUs);
		expect(report.goalMet).toBe(report.governed.medianUs <= 1.2 * report.bare.medianUs + 1000);
		expect(readdirSync(dir)).toEqual([]);
		const text = mcpSection(report).join("\n");
		expect(text).toContain("bare SDK Client.callTool (yardstick)");
		expect(text).toMatch(/goal ≤ 1\.2× \+ 1 ms: (met|NOT met)/);
	});
});
