import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerBenchCommand } from "./bench-command.js";
import type { BenchOptions, BenchReport, BenchSections } from "./bench-types.js";

const TINY: BenchOptions = { readCalls: 2, rounds: 1, warmupRounds: 0, decisionRounds: 1, decisionVariants: 1, decisionWarmUpMs: 0, decisionWarmUpLimitMs: 50, appendsPerRound: 2, chainRecords: 5, cliRuns: 1, recoveryRows: 20, recoveryLargeRows: 40, recoveryPending: 4, recoveryRounds: 1, sandboxRuns: 1, jitRuns: 1, concurrentProcesses: 2, concurrentCalls: 1, transportCalls: 1, downloadBytes: 1000, mcpCalls: 1, sessionCalls: 2, sessionCallsPerTurn: 1, compactionRounds: 1, compactionSteps: 1, llamaRuns: 1, tuiRuns: 1, tuiLines: 200, memoryRecords: 50, memoryQueries: 2, tuiKeystrokes: 2, consoleEvents: 2, consoleSmallRecords: 100, consoleLargeRecords: 200 };

/** A fresh `eval`-like parent with the bench command, printing into `printed`. */
function evalCommand(printed: string[]): Command {
	const parent = new Command("eval").exitOverride().configureOutput({ writeOut: (s) => printed.push(s), writeErr: (s) => printed.push(s) });
	registerBenchCommand(parent, (text) => printed.push(text), { ...TINY, onProgress: () => {} });
	return parent;
}

describe("registerBenchCommand", () => {
	let dir: string;

	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), "warden-bench-command-test-"));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("adds a bench subcommand that prints one JSON report with --json", async () => {
		const printed: string[] = [];
		await evalCommand(printed).parseAsync(["bench", "--json", "--dir", dir], { from: "user" });
		expect(printed).toHaveLength(1);
		const report = JSON.parse(printed[0]!) as BenchReport & BenchSections;
		expect(report.schema).toBe("warden.bench/3");
		expect(report.governedRead.callsPerRound).toBe(2);
		expect(report.appends.appendsPerRound).toBe(2);
		expect(report.auditVerify.records).toBeGreaterThanOrEqual(5);
		expect(report.cliStart.runs).toBe(1);
		expect(Object.keys(report)).toEqual(["schema", "startedAt", "durationMs", "environment", "governedRead", "decisions", "authority", "leases", "appends", "auditVerify", "cliStart", "recovery", "sandbox", "jit", "concurrency", "modelTransport", "llama", "groupCommit", "mcp", "session", "compaction", "skillProjection", "tui", "console", "memorySearch"]);
		expect(report.jit.runs).toBe(1);
		expect(report.recovery.pending).toBe(4);
		// --dir was used, and everything made there was removed.
		expect(readdirSync(dir)).toEqual([]);
	}, 60_000);

	it("runs only the benchmarks --only names, and says so in the report and the table", async () => {
		const printed: string[] = [];
		await evalCommand(printed).parseAsync(["bench", "--json", "--only", "decisions,leases", "--dir", dir], { from: "user" });
		const report = JSON.parse(printed[0]!) as BenchReport;
		// leases shares its run with authority, so both sections come back.
		expect(Object.keys(report)).toEqual(["schema", "startedAt", "durationMs", "environment", "only", "decisions", "authority", "leases"]);
		expect(report.only).toEqual(["decisions", "leases"]);
		expect(report.decisions?.engine.perSecond).toBeGreaterThan(0);
		// coresBusy comes from /proc/stat, which the tests' Linux has.
		expect(Object.keys(report.environment)).toEqual(["node", "platform", "arch", "cpus", "cpuModel", "source", "loadBefore", "loadAfter", "coresBusy"]);
		expect(report.environment.coresBusy).toBeGreaterThanOrEqual(0);
		expect(report.environment.coresBusy).toBeLessThanOrEqual(1);

		const text: string[] = [];
		await evalCommand(text).parseAsync(["bench", "--only", "decisions", "--dir", dir], { from: "user" });
		expect(text[0]).toMatch(/^Warden benchmarks: commit [0-9a-f]{40}/);
		expect(text[0]).toMatch(/\nload average \(1, 5, 15 min\) before [\d.]+ [\d.]+ [\d.]+, after [\d.]+ [\d.]+ [\d.]+; cores \d+% busy over the run; only decisions\n/);
		expect(text[0]).toContain("Permission decisions");
		expect(text[0]).not.toContain("Governed read_file");
		expect(readdirSync(dir)).toEqual([]);
	}, 60_000);

	it("refuses an --only name that is no benchmark, naming it and the benchmarks, before anything runs", async () => {
		const printed: string[] = [];
		await expect(evalCommand(printed).parseAsync(["bench", "--only", "decisions,decision", "--dir", dir], { from: "user" })).rejects.toThrow(
			/^unknown benchmark "decision" \(the benchmarks: governedRead, decisions, .*memorySearch\)$/,
		);
		await expect(evalCommand(printed).parseAsync(["bench", "--only", ",", "--dir", dir], { from: "user" })).rejects.toThrow(/^--only names no benchmark$/);
		expect(printed).toEqual([]);
	});

	it("passes --dir through: a directory that does not exist is refused before anything runs", async () => {
		const printed: string[] = [];
		await expect(evalCommand(printed).parseAsync(["bench", "--dir", join(dir, "missing")], { from: "user" })).rejects.toThrow(/is not an existing directory/);
		expect(printed).toEqual([]);
	});

	it("documents --json and --dir in its help", async () => {
		const printed: string[] = [];
		await expect(evalCommand(printed).parseAsync(["bench", "--help"], { from: "user" })).rejects.toThrow();
		const help = printed.join("");
		expect(help).toContain("--json");
		expect(help).toContain("--dir <dir>");
		expect(help).toContain("--only <names>");
	});
});
