import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PermissionEngine } from "../../kernel/admission/permission-engine.js";
import type { BenchReport, BenchSections, CallTiming, RateTiming } from "./bench-types.js";
import { formatBenchTable } from "./bench-table.js";
import { decisionInputs, decisionRules } from "./decision-mix.js";
import { NaivePrefixMatcher } from "./naive-prefix-matcher.js";
import { TEST_LLAMA_RUNTIME } from "../../models/test-support/llama-test-runtime.js";
import { runBenchmarks } from "./run-benchmarks.js";

const TINY = {
	readCalls: 3,
	rounds: 2,
	warmupRounds: 1,
	decisionRounds: 3,
	decisionVariants: 2,
	decisionWarmUpMs: 0,
	decisionWarmUpLimitMs: 200,
	appendsPerRound: 5,
	chainRecords: 20,
	cliRuns: 2,
	authorityCapabilities: 50,
	leaseChecks: 10,
	recoveryRows: 100,
	recoveryLargeRows: 1_000,
	recoveryPending: 8,
	recoveryRounds: 2,
	sandboxRuns: 2,
	jitRuns: 2,
	concurrentProcesses: 2,
	concurrentCalls: 2,
	transportCalls: 2,
	downloadBytes: 10_000,
	llamaRuns: 1,
	mcpCalls: 1,
	memoryRecords: 50,
	memoryQueries: 2,
	sessionCalls: 4,
	sessionCallsPerTurn: 2,
	compactionRounds: 2,
	compactionSteps: 2,
	tuiRuns: 1,
	tuiLines: 200,
	tuiKeystrokes: 2,
	consoleEvents: 2,
	consoleSmallRecords: 100,
	consoleLargeRecords: 200,
};

// The llama benchmark runs on the test runtime, never skipping for want of the user's cache.
process.env.WARDEN_LLAMA_RUNTIME = TEST_LLAMA_RUNTIME;

function expectTiming(timing: CallTiming | undefined, rounds: number): void {
	expect(timing).toBeDefined();
	expect(timing!.samplesUs).toHaveLength(rounds);
	for (const sample of timing!.samplesUs) expect(sample).toBeGreaterThan(0);
	expect(timing!.minUs).toBeLessThanOrEqual(timing!.medianUs);
	expect(timing!.medianUs).toBeLessThanOrEqual(timing!.maxUs);
	expect(timing!.minUs).toBe(Math.min(...timing!.samplesUs));
	expect(timing!.maxUs).toBe(Math.max(...timing!.samplesUs));
}

function expectRate(timing: RateTiming, rounds: number): void {
	expectTiming(timing, rounds);
	expect(timing.perSecond).toBeCloseTo(1e6 / timing.medianUs, 6);
}

describe("runBenchmarks with tiny parameters", () => {
	let tempDir: string;
	// Every benchmark ran: the test reads each section without asking whether it is there.
	let report: BenchReport & BenchSections;
	const progress: string[] = [];

	beforeAll(async () => {
		tempDir = mkdtempSync(join(tmpdir(), "warden-bench-test-"));
		report = (await runBenchmarks({ ...TINY, tempDir, onProgress: (line) => progress.push(line) })) as BenchReport & BenchSections;
	}, 120_000);

	afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

	it("describes the run and its environment", () => {
		expect(report.schema).toBe("warden.bench/3");
		expect(Number.isNaN(Date.parse(report.startedAt))).toBe(false);
		expect(report.durationMs).toBeGreaterThan(0);
		expect(report.environment.node).toBe(process.version);
		expect(report.environment.cpus).toBeGreaterThan(0);
		for (const load of [report.environment.loadBefore, report.environment.loadAfter]) {
			for (const value of [load.one, load.five, load.fifteen]) expect(value).toBeGreaterThanOrEqual(0);
		}
		// The tests run in a git checkout: the report names its commit.
		expect(report.environment.source.commit).toMatch(/^[0-9a-f]{40}$/);
		expect(report.only).toBeUndefined();
		expect(progress.some((line) => line.includes("governed"))).toBe(true);
		for (const phase of ["governed", "decisions", "authority", "leases", "appends", "audit verify", "cold start", "recovery", "sandbox", "jit", "concurrency", "llama", "mcp"]) {
			expect(progress.some((line) => line.startsWith(phase))).toBe(true);
		}
	});

	it("times the embedded model's provider against node-llama-cpp directly, per generated token", () => {
		const llama = report.llama!;
		expect(llama.notRun).toBeUndefined();
		expectTiming(llama.direct, 1);
		expectTiming(llama.provider, 1);
		expect(llama.ratio).toBeCloseTo(llama.provider!.medianUs / llama.direct!.medianUs, 10);
		expect(formatBenchTable(report)).toContain("provider overhead: ");
	});

	it("times the direct, governed and in-memory reads once per round, and their ratios agree with the medians", () => {
		const read = report.governedRead;
		expect(read).toMatchObject({ fileBytes: 4096, callsPerRound: 3, rounds: 2, warmupRounds: 1 });
		expectTiming(read.direct, 2);
		expectTiming(read.governed, 2);
		expectTiming(read.governedInMemory, 2);
		expectTiming(read.durableYardstick, 2);
		expect(read.ratio).toBeCloseTo(read.governed.medianUs / read.durableYardstick.medianUs, 10);
		expect(read.evidenceBytesPerCall).toBeGreaterThan(0);
		expect(read.commitsPerCall).toBeGreaterThan(0);
		expect(read.inMemoryRatio).toBeCloseTo(read.governedInMemory!.medianUs / read.direct.medianUs, 10);
		expect(read.durabilityShare).toBeCloseTo(1 - read.governedInMemory!.medianUs / read.governed.medianUs, 10);
	});

	it("counts the evidence a governed turn left: at least a decision and an outcome record per call", () => {
		const evidence = report.governedRead.evidencePerTurn;
		expect(evidence.toolCalls).toBe(3);
		expect(evidence.auditRecords).toBeGreaterThanOrEqual(2 * 3);
		expect(evidence.events).toBeGreaterThanOrEqual(4 * 3);
	});

	it("reports memory before and after the governed run with consistent ratios", () => {
		const mem = report.governedRead.memory;
		expect(typeof mem.gcForced).toBe("boolean");
		for (const bytes of [mem.heapAfterDirectBytes, mem.heapAfterGovernedBytes, mem.rssAfterDirectBytes, mem.rssAfterGovernedBytes]) {
			expect(bytes).toBeGreaterThan(0);
		}
		expect(mem.heapRatio).toBeCloseTo(mem.heapAfterGovernedBytes / mem.heapAfterDirectBytes, 10);
		expect(mem.rssRatio).toBeCloseTo(mem.rssAfterGovernedBytes / mem.rssAfterDirectBytes, 10);
		expect(mem.governedCalls).toBe(3 * 2);
		expect(mem.retainedHeapBytesPerCall).toBeCloseTo((mem.heapAfterGovernedBytes - mem.heapAfterDirectBytes) / 6, 6);
	});

	it("counts every decision of every round, for the engine and the yardstick alike", () => {
		const dec = report.decisions;
		const perRound = decisionInputs(2).length;
		expect(dec.inputsPerRound).toBe(perRound);
		expect(dec.rounds).toBe(3);
		for (const decider of [dec.engine, dec.naive]) {
			expect(decider.decisions).toBe(perRound * 3);
			expect(decider.perSecond).toBeGreaterThan(0);
			expect(decider.medianUsPerDecision).toBeCloseTo(1e6 / decider.perSecond, 6);
			expect(decider.bestUsPerDecision).toBeLessThanOrEqual(decider.medianUsPerDecision);
			expect(decider.bestUsPerDecision).toBeGreaterThan(0);
			expect(decider.firstPassUsPerDecision).toBeGreaterThan(0);
			expect(decider.cpuShare).toBeGreaterThan(0);
			const { allow, ask, deny } = decider.outcomes;
			expect(allow + ask + deny).toBe(perRound);
		}
		expect(dec.ratio).toBeCloseTo(dec.naive.perSecond / dec.engine.perSecond, 10);
		// No least warm-up and a 200 ms limit: it ends at the limit or when the fastest pass settled, whichever came first.
		expect(dec.warmUp.ms).toBeLessThan(200 + 1000);
		if (!dec.warmUp.settled) expect(dec.warmUp.ms).toBeGreaterThanOrEqual(200);
		expect(dec.hostRules).toBeGreaterThan(0);
		expect(dec.runDenyRules).toBeGreaterThan(0);
		expect(dec.naiveMorePermissive).toBeGreaterThan(0);
		expect(dec.naiveMorePermissive + dec.naiveStricter).toBeLessThanOrEqual(perRound);
	});

	it("prints a table naming each variant and the unsafe yardstick", () => {
		const text = formatBenchTable(report);
		expect(text).toContain("direct fs.promises.readFile (yardstick)");
		expect(text).toContain("governed, SQLite store");
		expect(text).toContain("governed, in-memory store");
		expect(text).toContain("naive prefix match (yardstick, UNSAFE)");
		expect(text).toContain(`${report.decisions.inputsPerRound} inputs × 3 rounds`);
		expect(text).toContain("JSON line to a file + fsync (yardstick, same durability)");
		expect(text).toContain("SqliteStore.appendAudit");
		expect(text).toContain("sha256 of the same bytes, prepared (yardstick, the floor)");
		expect(text).toContain("chain of 20 records");
		expect(text).toContain("node -e 0 (yardstick)");
		expect(text).toContain("10-grant preset (yardstick)");
		expect(text).toContain("50 capabilities");
		expect(text).toContain("lease grant + consume (both digests, exact binding)");
		expect(report.authority).toMatchObject({ capabilitiesHeld: 50, presetGrants: 10, rounds: 2, warmupRounds: 1 });
		expect(report.leases).toMatchObject({ checksPerRound: 10, rounds: 2 });
		expect(text).toContain("warden audit verify (empty state dir, opens SQLite)");
		expect(text).toContain("one process (yardstick)");
		expect(text).toContain("2 processes at once");
		expect(text).toMatch(/write lock under that load: wait p99 .+; held median .+; \d+ of \d+ write transactions waited over 1 ms/);
	});

	it("times true plain and (where bwrap works) sandboxed, and a cold JIT call against a node -e spawn, with ratios from the medians", () => {
		const sb = report.sandbox;
		expect(sb).toMatchObject({ runs: 2, warmupRuns: 1, profile: "workspace-write", network: false });
		expectTiming(sb.plain, 2);
		const text = formatBenchTable(report);
		if (sb.sandboxed) {
			expectTiming(sb.sandboxed, 2);
			expect(sb.ratio).toBeCloseTo(sb.sandboxed.medianUs / sb.plain.medianUs, 10);
			expect(text).toContain("true in bwrap (workspace-write, temp workspace, no network)");
		} else {
			expect(sb.notRun).toMatch(/\S/);
			expect(text).toContain(`not run: ${sb.notRun}`);
		}
		const jit = report.jit;
		expect(jit).toMatchObject({ runs: 2, warmupRuns: 1, limits: { memoryBytes: 32 * 1024 * 1024 } });
		expectTiming(jit.jit, 2);
		expectTiming(jit.spawn, 2);
		expect(jit.firstCallUs).toBeGreaterThan(0);
		expect(jit.speedup).toBeCloseTo(jit.spawn.medianUs / jit.jit.medianUs, 10);
		expect(report.concurrency).toMatchObject({ processes: 2, callsPerProcess: 2 });
		expect(report.concurrency.ratio).toBeCloseTo(report.concurrency.concurrent.perSecond / report.concurrency.single.perSecond, 10);
		expect(text).toContain("node -e computing input.a + input.b (yardstick)");
		expect(text).toMatch(/JIT is [\d.]+× faster \(goal: at least 20×\)/);
	});

	it("times every append variant once per measured round, with rates and ratios taken from the medians", () => {
		const app = report.appends;
		expect(app).toMatchObject({ appendsPerRound: 5, rounds: 2, warmupRounds: 1 });
		for (const timing of [app.yardstick, app.event, app.audit, app.auditInMemory]) expectRate(timing, 2);
		expect(app.eventRatio).toBeCloseTo(app.event.medianUs / app.yardstick.medianUs, 10);
		expect(app.auditRatio).toBeCloseTo(app.audit.medianUs / app.yardstick.medianUs, 10);
		expect(app.auditInMemoryRatio).toBeCloseTo(app.auditInMemory.medianUs / app.yardstick.medianUs, 10);
		expect(app.eventBytes).toBeGreaterThan(100);
		expect(app.auditBytes).toBeGreaterThan(100);
	});

	it("verifies a chain topped up to the requested length, every variant once per measured pass", () => {
		const ver = report.auditVerify;
		// The append benchmark left (1 + 2) × 5 = 15 audit records; the chain was topped up to 20.
		expect(ver).toMatchObject({ records: 20, rounds: 2, warmupRounds: 1 });
		for (const timing of [ver.yardstick, ver.inMemory, ver.sqlite]) expectRate(timing, 2);
		expect(ver.ratio).toBeCloseTo(ver.sqlite.medianUs / ver.yardstick.medianUs, 10);
		expect(ver.inMemoryRatio).toBeCloseTo(ver.inMemory.medianUs / ver.yardstick.medianUs, 10);
		// The previous hash (64), a newline, and a canonical record of at least its fixed fields.
		expect(ver.hashedBytes).toBeGreaterThan(65 + 100);
	});

	it("spawns each CLI command once per measured run, with ratios against node -e 0", () => {
		const cli = report.cliStart;
		expect(cli).toMatchObject({ runs: 2, warmupRuns: 1 });
		for (const timing of [cli.node, cli.version, cli.auditVerify]) expectTiming(timing, 2);
		expect(cli.versionRatio).toBeCloseTo(cli.version.medianUs / cli.node.medianUs, 10);
		expect(cli.auditVerifyRatio).toBeCloseTo(cli.auditVerify.medianUs / cli.node.medianUs, 10);
	});

	it("reopens each recovery history once per measured round, with the ratio of the large history to the small one", () => {
		const rec = report.recovery;
		expect(rec).toMatchObject({ pending: 8, rows: 100, largeRows: 1_000, rounds: 2, warmupRounds: 1 });
		for (const timing of [rec.yardstick, rec.reopen, rec.reopenLarge]) expectTiming(timing, 2);
		expect(rec.ratio).toBeCloseTo(rec.reopenLarge.medianUs / rec.reopen.medianUs, 10);
		const text = formatBenchTable(report);
		expect(text).toContain("only the 8 pending rows (yardstick)");
		expect(text).toContain("reopen at 1,000 / at 100 rows:");
	});

	it("times the console's feed from another process and its audit pages at both chain sizes, in the table too", () => {
		const c = report.console;
		expect(c).toMatchObject({ events: 2, smallRecords: 100, largeRecords: 200, pageRounds: 2 });
		expect(c?.feed.samples).toBe(2);
		for (const timing of [c?.smallPage, c?.largePage]) expectTiming(timing, 2);
		expect(formatBenchTable(report)).toContain("append start to SSE arrival");
	});

	it("round-trips through JSON unchanged, so --json prints the whole report", () => {
		expect(JSON.parse(JSON.stringify(report))).toEqual(report);
	});

	it("leaves nothing behind in its temp dir", () => {
		expect(readdirSync(tempDir)).toEqual([]);
	});
});

describe("the decision mix", () => {
	it("reaches every layer that matters, and fools the prefix matcher with compound commands", async () => {
		const engine = await PermissionEngine.create();
		const { hostRules, runDenyRules } = decisionRules();
		const ctx = { mode: "workspace-write" as const, workspace: "/bench/project", home: "/home/bench", runDenyRules, hostRules };
		const naive = new NaivePrefixMatcher(runDenyRules, hostRules);
		const inputs = decisionInputs(1);
		const layers = new Set(inputs.map((input) => engine.decide(input.facts, input.args, ctx).layer));
		expect([...layers]).toEqual(expect.arrayContaining(["hardline", "run-deny", "host-rule", "mode-rule"]));

		const chained = inputs.find((input) => String(input.args.command).startsWith("git status && curl"))!;
		expect(naive.decide(chained)).toBe("allow");
		expect(engine.decide(chained.facts, chained.args, ctx).decision).toBe("deny");
	});
});

describe("runBenchmarks options", () => {
	it("refuses a round count that is not a positive whole number", async () => {
		await expect(runBenchmarks({ rounds: 0 })).rejects.toThrow(/rounds must be a whole number >= 1, got 0/);
		await expect(runBenchmarks({ decisionVariants: 1.5 })).rejects.toThrow(/decisionVariants must be a whole number/);
		await expect(runBenchmarks({ cliRuns: 0 })).rejects.toThrow(/cliRuns must be a whole number >= 1, got 0/);
		await expect(runBenchmarks({ jitRuns: 0 })).rejects.toThrow(/jitRuns must be a whole number >= 1, got 0/);
		await expect(runBenchmarks({ chainRecords: -5 })).rejects.toThrow(/chainRecords must be a whole number >= 1/);
		await expect(runBenchmarks({ recoveryPending: 50, recoveryRows: 20 })).rejects.toThrow(/recoveryRows must be a whole number >= 50, got 20/);
	});

	it("refuses a temp dir or warden entry point that does not exist, before running anything", async () => {
		const progress: string[] = [];
		const onProgress = (line: string) => progress.push(line);
		await expect(runBenchmarks({ tempDir: "/nonexistent/warden-bench", onProgress })).rejects.toThrow(/temp dir \/nonexistent\/warden-bench is not an existing directory/);
		await expect(runBenchmarks({ wardenBin: "/nonexistent/warden.js", onProgress })).rejects.toThrow(/warden entry point \/nonexistent\/warden.js does not exist/);
		expect(progress).toEqual([]);
	});
});
