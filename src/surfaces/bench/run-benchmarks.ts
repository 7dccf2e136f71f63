/** The benchmark library: runs every benchmark (or those `only` names) once and returns one typed report. */
import { existsSync, mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { performance } from "node:perf_hooks";
import type { BenchName, BenchOptions, BenchReport, BenchSections } from "./bench-types.js";
import { BENCH_NAMES, selectBenchmarks } from "./bench-names.js";
import { benchAuthority, benchLeases } from "./authority-bench.js";
import { BenchError } from "./bench-error.js";
import { benchCliStart, defaultWardenBin } from "./cli-start.js";
import { benchCompaction } from "./compaction-bench.js";
import { benchSkillProjection } from "./skill-projection-bench.js";
import { benchConcurrency } from "./concurrency-bench.js";
import { benchConsole } from "./console-bench.js";
import { benchGroupCommit } from "./group-commit.js";
import { benchDecisions } from "./decisions.js";
import { benchEvidence } from "./evidence-bench.js";
import { benchGovernedRead } from "./governed-read.js";
import { benchLlama } from "./llama-bench.js";
import { benchRecovery } from "./recovery-bench.js";
import { benchModelTransport, transportDir } from "./model-transport-bench.js";
import { environmentAfter, environmentBefore } from "./provenance.js";
import { benchJitColdStart, benchSandboxSpawn } from "./sandbox-bench.js";
import { benchMcpRoundTrip } from "./mcp-bench.js";
import { benchMemorySearch } from "./memory-search-bench.js";
import { benchSession } from "./session-bench.js";
import { benchTui } from "./tui-bench.js";

/**
 * Sized so each benchmark but the recovery one stays well under a minute on a two-core machine. The
 * recovery benchmark's sizes are the (a million-row history): seeding it takes tens of
 * seconds, and each reopen settles its pending operations one durable commit each.
 */
export const BENCH_DEFAULTS = {
	readCalls: 100,
	rounds: 9,
	warmupRounds: 1,
	fileBytes: 4096,
	inMemorySplit: true,
	decisionRounds: 25,
	decisionVariants: 24,
	appendsPerRound: 200,
	chainRecords: 5000,
	cliRuns: 9,
	authorityCapabilities: 1000,
	leaseChecks: 1000,
	recoveryRows: 100_000,
	recoveryLargeRows: 1_000_000,
	recoveryPending: 1000,
	recoveryRounds: 3,
	sandboxRuns: 25,
	jitRuns: 25,
	concurrentProcesses: 8,
	concurrentCalls: 50,
	transportCalls: 50,
	downloadBytes: 64 * 1_048_576,
	llamaRuns: 9,
	groupCommitSessions: 8,
	mcpCalls: 50,
	memoryRecords: 100_000,
	memoryQueries: 200,
	sessionCalls: 10_000,
	sessionCallsPerTurn: 100,
	compactionRounds: 9,
	compactionSteps: 8,
	skillCount: 30,
	skillBodyBytes: 4096,
	tuiRuns: 5,
	tuiLines: 10_000,
	tuiKeystrokes: 40,
	consoleEvents: 200,
	consoleSmallRecords: 10_000,
	consoleLargeRecords: 1_000_000,
} as const;

/** The llama benchmark's synthetic model: small enough for a CPU core, big enough that a token is real work. */
const LLAMA_BENCH_MODEL = { hidden: 256, layers: 4, replyChars: 64 } as const;

type CountOption = { [K in keyof typeof BENCH_DEFAULTS]: (typeof BENCH_DEFAULTS)[K] extends number ? K : never }[keyof typeof BENCH_DEFAULTS];

function count(name: CountOption, value: number | undefined, min: number): number {
	const chosen = value ?? BENCH_DEFAULTS[name];
	if (!Number.isInteger(chosen) || chosen < min) throw new BenchError(`${name} must be a whole number >= ${min}, got ${chosen}`);
	return chosen;
}

export async function runBenchmarks(options: BenchOptions = {}): Promise<BenchReport> {
	const readCalls = count("readCalls", options.readCalls, 1);
	const rounds = count("rounds", options.rounds, 1);
	const warmupRounds = count("warmupRounds", options.warmupRounds, 0);
	const fileBytes = count("fileBytes", options.fileBytes, 1);
	const decisionRounds = count("decisionRounds", options.decisionRounds, 1);
	const decisionVariants = count("decisionVariants", options.decisionVariants, 1);
	const appendsPerRound = count("appendsPerRound", options.appendsPerRound, 1);
	const chainRecords = count("chainRecords", options.chainRecords, 1);
	const cliRuns = count("cliRuns", options.cliRuns, 1);
	const authorityCapabilities = count("authorityCapabilities", options.authorityCapabilities, 1);
	const leaseChecks = count("leaseChecks", options.leaseChecks, 1);
	const recoveryPending = count("recoveryPending", options.recoveryPending, 1);
	const recoveryRows = count("recoveryRows", options.recoveryRows, recoveryPending);
	const recoveryLargeRows = count("recoveryLargeRows", options.recoveryLargeRows, recoveryRows);
	const recoveryRounds = count("recoveryRounds", options.recoveryRounds, 1);
	const sandboxRuns = count("sandboxRuns", options.sandboxRuns, 1);
	const jitRuns = count("jitRuns", options.jitRuns, 1);
	const concurrentProcesses = count("concurrentProcesses", options.concurrentProcesses, 2);
	const concurrentCalls = count("concurrentCalls", options.concurrentCalls, 1);
	const llamaRuns = count("llamaRuns", options.llamaRuns, 1);
	const groupCommitSessions = count("groupCommitSessions", options.groupCommitSessions, 2);
	const mcpCalls = count("mcpCalls", options.mcpCalls, 1);
	const memoryRecords = count("memoryRecords", options.memoryRecords, 1);
	const memoryQueries = count("memoryQueries", options.memoryQueries, 1);
	const sessionCallsPerTurn = count("sessionCallsPerTurn", options.sessionCallsPerTurn, 1);
	const sessionCalls = count("sessionCalls", options.sessionCalls, 2 * sessionCallsPerTurn);
	const compactionRounds = count("compactionRounds", options.compactionRounds, 1);
	const compactionSteps = count("compactionSteps", options.compactionSteps, 1);
	const tuiRuns = count("tuiRuns", options.tuiRuns, 1);
	const tuiLines = count("tuiLines", options.tuiLines, 100);
	const tuiKeystrokes = count("tuiKeystrokes", options.tuiKeystrokes, 1);
	const consoleEvents = count("consoleEvents", options.consoleEvents, 1);
	const consoleSmallRecords = count("consoleSmallRecords", options.consoleSmallRecords, 100);
	const consoleLargeRecords = count("consoleLargeRecords", options.consoleLargeRecords, consoleSmallRecords);
	const transportCalls = count("transportCalls", options.transportCalls, 1);
	const downloadBytes = count("downloadBytes", options.downloadBytes, 1);
	const skillCount = count("skillCount", options.skillCount, 1);
	const skillBodyBytes = count("skillBodyBytes", options.skillBodyBytes, 1);
	const tempDir = options.tempDir || tmpdir();
	if (!existsSync(tempDir) || !statSync(tempDir).isDirectory()) throw new BenchError(`temp dir ${tempDir} is not an existing directory`);
	const wardenBin = options.wardenBin ?? defaultWardenBin();
	// Checked before the first benchmark rather than after a minute of them.
	if (!existsSync(wardenBin)) throw new BenchError(`warden entry point ${wardenBin} does not exist`);
	const selected = selectBenchmarks(options.only);
	const onProgress = options.onProgress ?? (() => {});
	const environment = environmentBefore();
	const startedAt = new Date();
	const started = performance.now();

	/** Each benchmark with the sections it fills; a few fill two, as they share one run. */
	const runners: [BenchName[], () => Promise<Partial<BenchSections>>][] = [
		[
			["governedRead"],
			async () => ({
				governedRead: await benchGovernedRead({ readCalls, rounds, warmupRounds, fileBytes, inMemorySplit: options.inMemorySplit ?? BENCH_DEFAULTS.inMemorySplit, tempDir, onProgress }),
			}),
		],
		[
			["decisions"],
			async () => ({
				decisions: await benchDecisions({
					rounds: decisionRounds,
					variants: decisionVariants,
					onProgress,
					...(options.decisionWarmUpMs === undefined ? {} : { warmUpMs: options.decisionWarmUpMs }),
					...(options.decisionWarmUpLimitMs === undefined ? {} : { warmUpLimitMs: options.decisionWarmUpLimitMs }),
				}),
			}),
		],
		[
			["authority", "leases"],
			async () => {
				const authorityOptions = { capabilities: authorityCapabilities, leaseChecks, rounds, warmupRounds, onProgress };
				return { authority: benchAuthority(authorityOptions), leases: benchLeases(authorityOptions) };
			},
		],
		[["appends", "auditVerify"], () => benchEvidence({ appendsPerRound, chainRecords, rounds, warmupRounds, tempDir, onProgress })],
		[["cliStart"], async () => ({ cliStart: await benchCliStart({ wardenBin, tempDir, runs: cliRuns, warmupRuns: warmupRounds, onProgress }) })],
		[
			["recovery"],
			async () => {
				const dir = realpathSync(mkdtempSync(join(tempDir, "warden-bench-recovery-")));
				try {
					return { recovery: await benchRecovery({ rows: recoveryRows, largeRows: recoveryLargeRows, pending: recoveryPending, rounds: recoveryRounds, warmupRounds, dir, onProgress }) };
				} finally {
					rmSync(dir, { recursive: true, force: true });
				}
			},
		],
		[["sandbox"], async () => ({ sandbox: await benchSandboxSpawn({ runs: sandboxRuns, warmupRuns: warmupRounds, tempDir, onProgress }) })],
		[["jit"], async () => ({ jit: await benchJitColdStart({ runs: jitRuns, warmupRuns: warmupRounds, onProgress }) })],
		[["concurrency"], async () => ({ concurrency: await benchConcurrency({ wardenBin, tempDir, processes: concurrentProcesses, calls: concurrentCalls, onProgress }) })],
		[
			["modelTransport"],
			async () => {
				const dir = transportDir(tempDir);
				try {
					return { modelTransport: await benchModelTransport({ calls: transportCalls, downloadBytes, rounds, warmupRounds, dir, onProgress }) };
				} finally {
					rmSync(dir, { recursive: true, force: true });
				}
			},
		],
		[["llama"], async () => ({ llama: await benchLlama({ runs: llamaRuns, warmupRuns: warmupRounds, ...LLAMA_BENCH_MODEL, tempDir, onProgress }) })],
		[["groupCommit"], async () => ({ groupCommit: await benchGroupCommit({ sessions: groupCommitSessions, recordsPerRound: appendsPerRound, rounds, warmupRounds, tempDir, onProgress }) })],
		[["mcp"], async () => ({ mcp: await benchMcpRoundTrip({ calls: mcpCalls, rounds, warmupRounds, tempDir, onProgress }) })],
		[
			["session"],
			async () => ({
				session: await benchSession({ calls: sessionCalls, callsPerTurn: sessionCallsPerTurn, window: sessionCallsPerTurn, warmupCalls: sessionCallsPerTurn * warmupRounds, tempDir, onProgress }),
			}),
		],
		[["compaction"], async () => ({ compaction: await benchCompaction({ rounds: compactionRounds, warmupRounds, stepsPerRound: compactionSteps, fileBytes, tempDir, onProgress }) })],
		[["skillProjection"], async () => ({ skillProjection: await benchSkillProjection({ skills: skillCount, bodyBytes: skillBodyBytes, tempDir, onProgress }) })],
		[["memorySearch"], async () => ({ memorySearch: await benchMemorySearch({ records: memoryRecords, queries: memoryQueries, rounds, warmupRounds, limit: 10, tempDir, onProgress }) })],
		[
			["tui"],
			async () => {
				const tui = await benchTui({ wardenBin, tempDir, runs: tuiRuns, warmupRuns: warmupRounds, lines: tuiLines, keystrokes: tuiKeystrokes, onProgress });
				return tui ? { tui } : {};
			},
		],
		[
			["console"],
			async () => {
				const dir = realpathSync(mkdtempSync(join(tempDir, "warden-bench-console-")));
				try {
					return { console: await benchConsole({ events: consoleEvents, smallRecords: consoleSmallRecords, largeRecords: consoleLargeRecords, pageRounds: rounds, warmupRounds, tempDir: dir, onProgress }) };
				} finally {
					rmSync(dir, { recursive: true, force: true });
				}
			},
		],
	];

	const sections: Partial<BenchSections> = {};
	for (const [names, run] of runners) {
		if (selected === undefined || names.some((name) => selected.includes(name))) Object.assign(sections, await run());
	}
	return {
		schema: "warden.bench/3",
		startedAt: startedAt.toISOString(),
		durationMs: performance.now() - started,
		environment: environmentAfter(environment),
		...(selected === undefined ? {} : { only: selected }),
		...orderedSections(sections),
	};
}

/** The report's sections in BENCH_NAMES order, whatever order the runners filled them in. */
function orderedSections(sections: Partial<BenchSections>): Partial<BenchSections> {
	const ordered: Partial<BenchSections> = {};
	for (const name of BENCH_NAMES) if (sections[name] !== undefined) Object.assign(ordered, { [name]: sections[name] });
	return ordered;
}
