/**
 * CLI cold start: wall time from spawning `node bin/warden.js …` to its exit, against `node -e 0`,
 * the floor any Node CLI pays. `--version` measures loading the CLI; `audit verify` on an empty
 * state dir also opens SQLite (native module, pragmas, migrations check) and walks an empty chain.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import type { CliStartReport } from "./bench-types.js";
import { BenchError } from "./bench-error.js";
import { callTiming } from "./call-timing.js";

export interface CliStartOptions {
	/** Path of bin/warden.js. */
	wardenBin: string;
	/** Where the state dir the `audit verify` runs use is made (and removed afterwards). */
	tempDir: string;
	runs: number;
	warmupRuns: number;
	onProgress: (line: string) => void;
}

type Variant = "node" | "version" | "auditVerify";

interface Command {
	args: string[];
	/** What stdout must match, so a run that failed early is not timed as a fast start. */
	expect: RegExp;
}

/** This file sits at src/surfaces/bench/ or dist/surfaces/bench/; bin/ is three levels up from either. */
export function defaultWardenBin(): string {
	return fileURLToPath(new URL("../../../bin/warden.js", import.meta.url));
}

function timedSpawn(name: Variant, command: Command, env: NodeJS.ProcessEnv): number {
	const started = performance.now();
	const child = spawnSync(process.execPath, command.args, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
	const elapsedUs = (performance.now() - started) * 1000;
	if (child.error) throw new BenchError(`cold start (${name}): cannot run node: ${child.error.message}`);
	if (child.status !== 0 || !command.expect.test(child.stdout)) {
		const why = (child.stderr.trim().split("\n")[0] ?? "") || `stdout ${JSON.stringify(child.stdout.slice(0, 80))}`;
		throw new BenchError(`cold start (${name}): node ${command.args.join(" ")} exited ${child.status ?? child.signal}: ${why}`);
	}
	return elapsedUs;
}

export async function benchCliStart(options: CliStartOptions): Promise<CliStartReport> {
	if (!existsSync(options.wardenBin)) throw new BenchError(`cold start: ${options.wardenBin} does not exist`);
	const base = realpathSync(mkdtempSync(join(options.tempDir, "warden-bench-cli-")));
	try {
		const stateDir = join(base, "state");
		// Created beforehand, so every run opens the same existing, empty database rather than the first creating it.
		await openSqliteStore(stateDir).close();
		return timeCommands(options, stateDir);
	} finally {
		rmSync(base, { recursive: true, force: true });
	}
}

function timeCommands(options: CliStartOptions, stateDir: string): CliStartReport {
	const { wardenBin, runs, warmupRuns, onProgress } = options;
	const commands: Record<Variant, Command> = {
		node: { args: ["-e", "0"], expect: /^$/ },
		version: { args: [wardenBin, "--version"], expect: /^\d+\.\d+\.\d+/ },
		auditVerify: { args: [wardenBin, "audit", "verify", "--state-dir", stateDir], expect: /^audit chain valid: 0 records$/m },
	};
	// WARDEN_HOME points into the bench's temp dir too, so no run can touch the user's own state.
	const env = { ...process.env, WARDEN_HOME: stateDir };
	const names = Object.keys(commands) as Variant[];
	const samples: Record<Variant, number[]> = { node: [], version: [], auditVerify: [] };

	onProgress(`cold start: ${warmupRuns} warm-up and ${runs} measured runs of each command, interleaved`);
	for (let r = 0; r < warmupRuns + runs; r++) {
		for (const name of names) {
			const elapsedUs = timedSpawn(name, commands[name], env);
			if (r >= warmupRuns) samples[name].push(elapsedUs);
		}
	}

	const node = callTiming(samples.node);
	const version = callTiming(samples.version);
	const auditVerify = callTiming(samples.auditVerify);
	return {
		runs,
		warmupRuns,
		node,
		version,
		auditVerify,
		versionRatio: version.medianUs / node.medianUs,
		auditVerifyRatio: auditVerify.medianUs / node.medianUs,
	};
}
