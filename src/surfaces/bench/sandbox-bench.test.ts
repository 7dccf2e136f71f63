import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSection } from "./bench-table.js";
import { benchSandboxSpawn } from "./sandbox-bench.js";

describe("benchSandboxSpawn without a working bwrap", () => {
	let dir: string;

	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), "warden-sandbox-bench-test-"));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("still times the plain yardstick, reports the sandboxed line as not run with the probe's reason, and removes its workspace", async () => {
		const report = await benchSandboxSpawn({
			runs: 2,
			warmupRuns: 0,
			tempDir: dir,
			onProgress: () => {},
			probe: async () => ({ available: false, reason: "bubblewrap (bwrap) is not installed" }),
			landlockProbe: async () => ({ available: false, reason: "Landlock is not available: the kernel was built without it" }),
		});
		expect(report.plain.samplesUs).toHaveLength(2);
		expect(report.sandboxed).toBeUndefined();
		expect(report.ratio).toBeUndefined();
		expect(report.notRun).toBe("bubblewrap (bwrap) is not installed");
		expect(readdirSync(dir)).toEqual([]);
		const text = sandboxSection(report).join("\n");
		expect(text).toContain("true in bwrap (workspace-write, temp workspace, no network): not run: bubblewrap (bwrap) is not installed");
		expect(report.landlock).toBeUndefined();
		expect(text).toContain("true under Landlock (workspace-write, temp workspace, no network): not run: Landlock is not available: the kernel was built without it");
	});
});

describe("benchSandboxSpawn with both sandboxes", () => {
	let dir: string;

	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), "warden-sandbox-bench-test-"));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("times bwrap and Landlock in the same run, each as a ratio to the same plain yardstick, and removes what it made", async () => {
		const report = await benchSandboxSpawn({ runs: 2, warmupRuns: 0, tempDir: dir, onProgress: () => {} });
		// This project's machines have both (see sandbox-probe.test.ts).
		expect(report.sandboxed?.samplesUs).toHaveLength(2);
		expect(report.landlock?.samplesUs).toHaveLength(2);
		expect(report.ratio).toBeCloseTo(report.sandboxed!.medianUs / report.plain.medianUs, 10);
		expect(report.landlockRatio).toBeCloseTo(report.landlock!.medianUs / report.plain.medianUs, 10);
		expect(readdirSync(dir)).toEqual([]);
		expect(sandboxSection(report).join("\n")).toContain("true under Landlock (workspace-write, temp workspace, no network)");
	});
});
