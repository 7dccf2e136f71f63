import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BenchError } from "./bench-error.js";
import { benchCliStart, defaultWardenBin } from "./cli-start.js";

describe("benchCliStart", () => {
	let dir: string;
	const quiet = () => {};

	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), "warden-cli-start-test-"));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it("finds bin/warden.js three levels above its own folder", () => {
		expect(defaultWardenBin().endsWith(join("bin", "warden.js"))).toBe(true);
		expect(existsSync(defaultWardenBin())).toBe(true);
	});

	it("refuses an entry point that does not exist", async () => {
		await expect(benchCliStart({ wardenBin: join(dir, "missing.js"), tempDir: dir, runs: 1, warmupRuns: 0, onProgress: quiet })).rejects.toThrow(
			/missing\.js does not exist/,
		);
	});

	it("does not time a command that failed as a fast start: it names the exit status and the first line of stderr", async () => {
		const failing = join(dir, "failing.js");
		writeFileSync(failing, 'process.stderr.write("cannot find dist\\nmore\\n"); process.exit(3);\n');
		const run = benchCliStart({ wardenBin: failing, tempDir: dir, runs: 1, warmupRuns: 0, onProgress: quiet });
		await expect(run).rejects.toBeInstanceOf(BenchError);
		await expect(run).rejects.toThrow(/cold start \(version\): .*failing\.js --version exited 3: cannot find dist$/);
	});

	it("does not accept a command that exits 0 without printing what the real one prints", async () => {
		const silent = join(dir, "silent.js");
		writeFileSync(silent, "process.exit(0);\n");
		await expect(benchCliStart({ wardenBin: silent, tempDir: dir, runs: 1, warmupRuns: 0, onProgress: quiet })).rejects.toThrow(
			/cold start \(version\): .* exited 0: stdout ""/,
		);
		// Its temporary state dir is removed even when a run fails.
		expect(readdirSync(dir).sort()).toEqual(["silent.js"]);
	});
});
