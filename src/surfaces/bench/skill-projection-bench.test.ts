import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillProjectionSection } from "./bench-table.js";
import type { SkillProjectionReport } from "./bench-types.js";
import { benchSkillProjection } from "./skill-projection-bench.js";

describe("benchSkillProjection at tiny sizes", () => {
	let dir: string;
	let report: SkillProjectionReport;
	const progress: string[] = [];

	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), "warden-skill-bench-test-"));
		report = await benchSkillProjection({ skills: 3, bodyBytes: 2000, tempDir: dir, onProgress: (line) => progress.push(line) });
	}, 60_000);

	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("measures both real first requests, the projected one smaller by the bodies it leaves out", () => {
		expect(report).toMatchObject({ skills: 3, bodyBytes: 2000 });
		// Three bodies of 2,000 bytes are what inlining adds, less the catalogue and the tool that projection adds.
		expect(report.inlinedBytes - report.projectedBytes).toBeGreaterThan(3 * 2000 - 2500);
		expect(report.ratio).toBeCloseTo(report.projectedBytes / report.inlinedBytes, 9);
		expect(report.reduction).toBeCloseTo(1 - report.ratio, 9);
		expect(report.goalMet).toBe(report.reduction >= 0.6);
		// After one activation the request holds that one body.
		expect(report.activatedOneBytes - report.projectedBytes).toBeGreaterThan(2000);
		expect(progress).toEqual(["skill projection: 3 skills of 2000-byte bodies, projected vs inlined"]);
	});

	it("renders the yardstick row, the projected rows and the goal, and leaves no directory behind", () => {
		const lines = skillProjectionSection(report);
		expect(lines[0]).toContain("3 skills (2000-byte bodies)");
		expect(lines.some((l) => l.includes("all skills inlined in the system prompt (yardstick)"))).toBe(true);
		expect(lines.at(-1)).toMatch(/% fewer bytes projected; goal ≥ 60% fewer: (met|NOT met)$/);
		expect(readdirSync(dir)).toEqual([]);
	});

	it("refuses a size that is not a whole number of skills", async () => {
		await expect(benchSkillProjection({ skills: 0, bodyBytes: 10, tempDir: dir, onProgress: () => {} })).rejects.toThrow("skillCount must be a whole number >= 1, got 0");
	});
});
