/** The report as the plain-text tables `warden eval bench` and `npm run bench` print. */
import type {
	AppendReport,
	AuditVerifyReport,
	AuthorityReport,
	BenchReport,
	CliStartReport,
	EchoTiming,
	TuiBenchReport,
	ConcurrencyReport,
	DecisionReport,
	DeciderTiming,
	GovernedReadReport,
	JitColdStartReport,
	LeaseReport,
	RecoveryBenchReport,
	SandboxSpawnReport,
} from "./bench-types.js";
import { duration, mib, rateRow, ratio, table, thousands, timingRow } from "./table-cells.js";

function deciderRow(label: string, timing: DeciderTiming): string[] {
	const { allow, ask, deny } = timing.outcomes;
	return [label, thousands(timing.perSecond), timing.medianUsPerDecision.toFixed(2), String(allow), String(ask), String(deny)];
}

function governedReadSection(read: GovernedReadReport): string[] {
	const lines = [`Governed read_file of a ${read.fileBytes}-byte file, per call (median of ${read.rounds} rounds × ${read.callsPerRound} calls, after ${read.warmupRounds} warm-up round(s))`];
	const base = read.direct.medianUs;
	const rows = [
		["variant", "median", "min", "max", "vs direct"],
		timingRow("direct fs.promises.readFile (yardstick)", read.direct, base),
		timingRow("governed, SQLite store (WAL, synchronous=FULL)", read.governed, base),
	];
	if (read.governedInMemory) rows.push(timingRow("governed, in-memory store", read.governedInMemory, base));
	lines.push(...table(rows));
	if (read.durabilityShare !== undefined) {
		lines.push(`  durable storage is ${(read.durabilityShare * 100).toFixed(0)}% of a governed call`);
	}
	const ev = read.evidencePerTurn;
	lines.push(`  evidence of one turn of ${ev.toolCalls} calls: ${ev.events} events, ${ev.auditRecords} audit records`);
	const mem = read.memory;
	lines.push(
		`  memory${mem.gcForced ? " after GC" : " (GC not forced)"}: heap ${mib(mem.heapAfterDirectBytes)} after direct → ${mib(mem.heapAfterGovernedBytes)} after ${mem.governedCalls} governed calls (${ratio(mem.heapRatio)}), ` +
			`RSS ${mib(mem.rssAfterDirectBytes)} → ${mib(mem.rssAfterGovernedBytes)} (${ratio(mem.rssRatio)}); heap retained ${mem.retainedHeapBytesPerCall.toFixed(0)} B per call`,
	);
	return lines;
}

function decisionsSection(dec: DecisionReport): string[] {
	return [
		`Permission decisions (${dec.inputsPerRound} inputs × ${dec.rounds} rounds, ${dec.distinctShellCommands} distinct shell commands; ${dec.hostRules} host rules, ${dec.runDenyRules} run-deny rules)`,
		...table([
			["decider", "decisions/s", "µs/decision", "allow", "ask", "deny"],
			deciderRow("PermissionEngine.decide (parses every command)", dec.engine),
			deciderRow("naive prefix match (yardstick, UNSAFE)", dec.naive),
		]),
		`  naive / engine: ${ratio(dec.ratio)}, the price of parsing. The yardstick is the unsafe approach other agents use:`,
		`  on this mix it decided ${dec.naiveMorePermissive} of ${dec.inputsPerRound} inputs more permissively than the engine, ${dec.naiveStricter} more strictly.`,
	];
}

function authoritySection(a: AuthorityReport, l: LeaseReport): string[] {
	return [
		`Capability admission at the primitive, per decision (${a.requestsPerRound} requests × ${a.rounds} rounds, after ${a.warmupRounds} warm-up round(s); admitted ${a.admitted.held} held / ${a.admitted.preset} preset)`,
		...table([
			["grants held", "decisions/s", "median", "min", "max", "vs preset"],
			rateRow(`${a.presetGrants}-grant preset (yardstick)`, a.preset, a.preset.medianUs),
			rateRow(`${a.capabilitiesHeld} capabilities`, a.held, a.preset.medianUs),
		]),
		"",
		`Approval lease check, per call (${l.checksPerRound} leases × ${l.rounds} rounds; arguments ${l.argumentsBytes} B of JSON)`,
		...table([
			["variant", "checks/s", "median", "min", "max", "vs sha256"],
			rateRow("sha256 of the canonical arguments (yardstick, the floor)", l.digest, l.digest.medianUs),
			rateRow("lease grant + consume (both digests, exact binding)", l.lease, l.digest.medianUs),
		]),
	];
}

function appendsSection(app: AppendReport): string[] {
	const base = app.yardstick.medianUs;
	return [
		`Durable appends, one commit each, per append (median of ${app.rounds} rounds × ${app.appendsPerRound} appends, after ${app.warmupRounds} warm-up round(s); events ${app.eventBytes.toFixed(0)} B, audit inputs ${app.auditBytes.toFixed(0)} B of JSON)`,
		...table([
			["variant", "appends/s", "median", "min", "max", "vs yardstick"],
			rateRow("JSON line to a file + fsync (yardstick, same durability)", app.yardstick, base),
			rateRow("SqliteStore.appendEvent (WAL, synchronous=FULL)", app.event, base),
			rateRow("SqliteStore.appendAudit (chained, synchronous=FULL)", app.audit, base),
			rateRow("in-memory appendAudit (chain CPU only, not durable)", app.auditInMemory, base),
		]),
	];
}

function auditVerifySection(ver: AuditVerifyReport): string[] {
	const base = ver.yardstick.medianUs;
	return [
		`Audit-chain verification, per record (chain of ${ver.records} records, ${ver.hashedBytes.toFixed(0)} B hashed each; median of ${ver.rounds} passes, after ${ver.warmupRounds} warm-up pass(es))`,
		...table([
			["variant", "records/s", "median", "min", "max", "vs yardstick"],
			rateRow("sha256 of the same bytes, prepared (yardstick, the floor)", ver.yardstick, base),
			rateRow("verifyChain over records in memory", ver.inMemory, base),
			rateRow("SqliteStore.verifyAudit (read, decode, canonicalize, hash)", ver.sqlite, base),
		]),
	];
}

function echoRow(label: string, e: EchoTiming): string[] {
	return [label, `${e.p50Ms.toFixed(1)} ms`, `${e.p95Ms.toFixed(1)} ms`, `${e.maxMs.toFixed(1)} ms`, String(e.samples)];
}

export function tuiSection(t: TuiBenchReport): string[] {
	const base = t.version.medianUs;
	return [
		`Interactive terminal in a pseudo-terminal (median of ${t.runs} starts, after ${t.warmupRuns} warm-up start(s))`,
		...table([
			["start", "median", "min", "max", "vs --version"],
			timingRow("warden --version, spawn to exit (yardstick)", t.version, base),
			timingRow("warden, spawn to the ready prompt (goal ≤ 2×)", t.readyPrompt, base),
		]),
		`Keystroke to echo on screen; under load, ${thousands(t.lines)} lines of shell output go through a ! command and its card (p95 ${t.echoRatio.toFixed(2)}× idle; goal p95 ≤ 50 ms)`,
		...table([["prompt", "p50", "p95", "max", "keys"], echoRow("idle (yardstick)", t.idleEcho), echoRow(`under ${thousands(t.lines)} lines of output`, t.loadedEcho)]),
	];
}

function cliStartSection(cli: CliStartReport): string[] {
	const base = cli.node.medianUs;
	return [
		`CLI cold start, spawn to exit (median of ${cli.runs} runs, after ${cli.warmupRuns} warm-up run(s))`,
		...table([
			["command", "median", "min", "max", "vs node -e 0"],
			timingRow("node -e 0 (yardstick)", cli.node, base),
			timingRow("warden --version", cli.version, base),
			timingRow("warden audit verify (empty state dir, opens SQLite)", cli.auditVerify, base),
		]),
	];
}

function recoverySection(rec: RecoveryBenchReport): string[] {
	const base = rec.yardstick.medianUs;
	return [
		`Reopen after a crash: SqliteStore.open + recoverOperations, ${thousands(rec.pending)} pending operations each time (median of ${rec.rounds} reopens, after ${rec.warmupRounds} warm-up reopen(s))`,
		...table([
			["history", "median", "min", "max", "vs yardstick"],
			timingRow(`only the ${thousands(rec.pending)} pending rows (yardstick)`, rec.yardstick, base),
			timingRow(`${thousands(rec.rows)} operation rows`, rec.reopen, base),
			timingRow(`${thousands(rec.largeRows)} operation rows`, rec.reopenLarge, base),
		]),
		`  reopen at ${thousands(rec.largeRows)} / at ${thousands(rec.rows)} rows: ${ratio(rec.ratio)} (goal: close to 1×, the work bounded by pending rows)`,
		`  seeding the histories in one transaction: ${(rec.seedMs.rows / 1000).toFixed(1)} s and ${(rec.seedMs.largeRows / 1000).toFixed(1)} s`,
	];
}

export function sandboxSection(sb: SandboxSpawnReport): string[] {
	const base = sb.plain.medianUs;
	const label = `true in bwrap (${sb.profile}, temp workspace, no network)`;
	const rows = [["command", "median", "min", "max", "vs plain"], timingRow("true through runShell, plain (yardstick)", sb.plain, base)];
	const landlockLabel = `true under Landlock (${sb.profile}, temp workspace, no network)`;
	if (sb.sandboxed) rows.push(timingRow(label, sb.sandboxed, base));
	if (sb.landlock) rows.push(timingRow(landlockLabel, sb.landlock, base));
	const lines = [`Sandboxed command, spawn to exit through runShell (median of ${sb.runs} runs, after ${sb.warmupRuns} warm-up run(s))`, ...table(rows)];
	// A row of empty cells would read as a measurement; a missing sandbox is said in words instead.
	if (!sb.sandboxed) lines.push(`  ${label}: not run: ${sb.notRun ?? "no reason given"}`);
	if (!sb.landlock) lines.push(`  ${landlockLabel}: not run: ${sb.landlockNotRun ?? "no reason given"}`);
	return lines;
}

function concurrencySection(c: ConcurrencyReport): string[] {
	return [
		`Many processes on one state dir: ${c.processes} \`warden run\` processes at once, ${c.callsPerProcess} governed write_file calls each, vs one process (CLI start included)`,
		...table([
			["variant", "calls/s", "wall", "vs one process"],
			["one process (yardstick)", thousands(c.single.perSecond), duration(c.single.wallUs), ratio(1)],
			[`${c.processes} processes at once`, thousands(c.concurrent.perSecond), duration(c.concurrent.wallUs), ratio(c.ratio)],
		]),
		`  write-lock wait under that load: p99 ${duration(c.lockWaitP99Us)}, max ${duration(c.lockWaitMaxUs)} over ${c.lockWaits} write transactions`,
	];
}

function jitSection(jit: JitColdStartReport): string[] {
	const base = jit.spawn.medianUs;
	return [
		`JIT tool call, cold (fresh QuickJS runtime + context, ${mib(jit.limits.memoryBytes)} / ${jit.limits.deadlineMs} ms limits) vs spawning a process for the same work (median of ${jit.runs} runs, after ${jit.warmupRuns} warm-up run(s))`,
		...table([
			["variant", "median", "min", "max", "vs node -e"],
			timingRow("node -e computing input.a + input.b (yardstick)", jit.spawn, base),
			timingRow("runIsolated of input.a + input.b", jit.jit, base),
		]),
		`  JIT is ${ratio(jit.speedup)} faster (goal: at least 20×)`,
		`  first call in the process, loading the wasm module (once per process): ${duration(jit.firstCallUs)}`,
	];
}

export function formatBenchTable(report: BenchReport): string {
	const env = report.environment;
	return [
		`Warden benchmarks: node ${env.node}, ${env.platform} ${env.arch}, ${env.cpus} × ${env.cpuModel}; ${(report.durationMs / 1000).toFixed(1)} s`,
		"",
		...governedReadSection(report.governedRead),
		"",
		...decisionsSection(report.decisions),
		"",
		...authoritySection(report.authority, report.leases),
		"",
		...appendsSection(report.appends),
		"",
		...auditVerifySection(report.auditVerify),
		"",
		...cliStartSection(report.cliStart),
		"",
		...recoverySection(report.recovery),
		"",
		...sandboxSection(report.sandbox),
		"",
		...jitSection(report.jit),
		"",
		...concurrencySection(report.concurrency),
		...(report.tui ? ["", ...tuiSection(report.tui)] : []),
	].join("\n");
}
