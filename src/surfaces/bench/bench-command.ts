/**
 * The `bench` subcommand, for whichever command hosts it (`warden eval`, or run.ts for
 * `npm run bench`). The report goes to `out` alone; progress goes to stderr, and only to a
 * terminal, so `--json` output stays one parseable object.
 */
import type { Command } from "commander";
import { BENCH_NAMES, parseOnly } from "./bench-names.js";
import type { BenchOptions } from "./bench-types.js";

interface BenchFlags {
	json?: boolean;
	dir?: string;
	only?: string;
}

function progressToTerminal(line: string): void {
	if (process.stderr.isTTY) process.stderr.write(`… ${line}\n`);
}

/** `defaults` sizes the run (tests pass tiny figures); `--dir` overrides its tempDir, `--only` its benchmarks. */
export function registerBenchCommand(parent: Command, out: (text: string) => void, defaults: BenchOptions = {}): void {
	parent
		.command("bench")
		.description("time governed reads, permission decisions, evidence appends, audit verification, CLI start, reopen after a crash, a sandboxed command and a cold JIT call, each against a yardstick in the same run")
		.option("--json", "print one JSON report instead of the tables")
		.option("--only <names>", `run only these benchmarks, comma-separated: ${BENCH_NAMES.join(", ")}`)
		.option("--dir <dir>", "where temporary workspaces and state dirs are made (default: the OS temp dir; its filesystem decides what fsync costs)")
		.action(async (flags: BenchFlags) => {
			// Loaded only when this command runs, so the CLI starts without the benchmarks.
			const [{ formatBenchTable }, { runBenchmarks }] = await Promise.all([import("./bench-table.js"), import("./run-benchmarks.js")]);
			const report = await runBenchmarks({
				onProgress: progressToTerminal,
				...defaults,
				...(flags.dir === undefined ? {} : { tempDir: flags.dir }),
				...(flags.only === undefined ? {} : { only: parseOnly(flags.only) }),
			});
			out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatBenchTable(report)}\n`);
		});
}
