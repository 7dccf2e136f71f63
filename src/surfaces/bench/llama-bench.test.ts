import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_LLAMA_ENV } from "../../models/test-support/llama-test-runtime.js";
import { benchLlama } from "./llama-bench.js";

const tempDir = mkdtempSync(join(tmpdir(), "warden-bench-llama-test-"));

describe("benchLlama (tiny sizes)", () => {
	it("times the provider and node-llama-cpp directly on the same forced reply, per generated token, with the ratio of medians", async () => {
		const progress: string[] = [];
		const env = { ...process.env, ...TEST_LLAMA_ENV };
		const report = await benchLlama({ runs: 2, warmupRuns: 1, hidden: 64, layers: 2, replyChars: 8, tempDir, env, onProgress: (l) => progress.push(l) });
		expect(report.notRun).toBeUndefined();
		expect(report.generatedTokens).toBeGreaterThan(8);
		expect(report.promptTokens).toBeGreaterThan(0);
		expect(report.direct?.samplesUs).toHaveLength(2);
		expect(report.provider?.samplesUs).toHaveLength(2);
		expect(report.ratio).toBeCloseTo(report.provider!.medianUs / report.direct!.medianUs, 10);
		expect(progress[0]).toMatch(/^llama: 1 warm-up and 2 measured replies per variant/);
	}, 120_000);

	it("says it was not run, and why, when the runtime is not installed", async () => {
		const empty = mkdtempSync(join(tmpdir(), "warden-bench-llama-none-"));
		const progress: string[] = [];
		const report = await benchLlama({ runs: 1, warmupRuns: 0, hidden: 64, layers: 2, replyChars: 8, tempDir, env: { WARDEN_LLAMA_RUNTIME: empty }, onProgress: (l) => progress.push(l) });
		expect(report.notRun).toBe(`llama runtime not installed: node-llama-cpp is not installed in ${empty} (install it: node ${join(process.cwd(), "scripts", "install-llama-runtime.mjs")} ${empty})`);
		expect(report.direct).toBeUndefined();
		expect(report.ratio).toBeUndefined();
		expect(progress).toEqual([`llama: not run: ${report.notRun}`]);
	});
});
