/** The report as the plain-text tables `warden eval bench` and `npm run bench` print. */
import type {
	AppendReport,
	AuditVerifyReport,
	AuthorityReport,
	BenchReport,
	CliStartReport,
	CompactionBenchReport,
	SkillProjectionReport,
	EchoTiming,
	TuiBenchReport,
	ConcurrencyReport,
	ConcurrencyVariant,
	GroupCommitReport,
	DecisionReport,
	DeciderTiming,
	GovernedReadReport,
	JitColdStartReport,
	LlamaOverheadReport,
	LeaseReport,
	LoadAverage,
	ModelTransportReport,
	McpRoundTripReport,
	MemorySearchReport,
	RecoveryBenchReport,
	SandboxSpawnReport,
	SessionBenchReport,
} from "./bench-types.js";
import { callBreakdownLines } from "./call-breakdown-table.js";
import { consoleSection } from "./console-bench-table.js";
import { duration, mib, rateRow, ratio, table, thousands, timingRow } from "./table-cells.js";

export function modelTransportSection(t: ModelTransportReport): string[] {
	return [
		`Model transport on 127.0.0.1 (median of ${t.rounds} rounds × ${t.calls} streamed answers and one download, after ${t.warmupRounds} warm-up round(s))`,
		...table([
			["variant", "median", "min", "max", "vs yardstick"],
			timingRow("Anthropic SDK stream, per answer (yardstick)", t.anthropic.sdk, t.anthropic.sdk.medianUs),
			timingRow("AnthropicModel.complete", t.anthropic.warden, t.anthropic.sdk.medianUs),
			timingRow(`fetch piped to a file, ${mib(t.downloadBytes)} (yardstick)`, t.download.fetch, t.download.fetch.medianUs),
			timingRow("downloadFile (redirect, .partial, sha256, rename)", t.download.downloader, t.download.fetch.medianUs),
		]),
		`  an answer through the provider takes ${ratio(t.anthropic.ratio)} the SDK's own stream; a download ${ratio(t.download.ratio)} a bare fetch (${t.download.mibPerSecond.toFixed(0)} MiB/s, sha256 included)`,
	];
}

function deciderRow(label: string, timing: DeciderTiming): string[] {
	const { allow, ask, deny } = timing.outcomes;
	return [label, thousands(timing.perSecond), timing.medianUsPerDecision.toFixed(2), timing.bestUsPerDecision.toFixed(2), timing.cpuUsPerDecision.toFixed(2), timing.firstPassUsPerDecision.toFixed(1), String(allow), String(ask), String(deny)];
}

export function governedReadSection(read: GovernedReadReport): string[] {
	const lines = [`Governed read_file of a ${read.fileBytes}-byte file, per call (median of ${read.rounds} rounds × ${read.callsPerRound} calls, after ${read.warmupRounds} warm-up round(s))`];
	const base = read.direct.medianUs;
	// Reports written before the durable yardstick have only the bare read.
	const durableBase = read.durableYardstick?.medianUs ?? base;
	const rows = [
		["variant", "median", "min", "max", "vs yardstick"],
		timingRow("direct fs.promises.readFile (yardstick)", read.direct, base),
		...(read.durableYardstick ? [timingRow(`readFile + fsync'd append of ${read.evidenceBytesPerCall.toFixed(0)} B of evidence (durable yardstick)`, read.durableYardstick, durableBase)] : []),
		timingRow("governed, SQLite store (WAL, synchronous=FULL)", read.governed, durableBase),
	];
	if (read.governedInMemory) rows.push(timingRow("governed, in-memory store", read.governedInMemory, base));
	lines.push(...table(rows));
	if (read.commitsPerCall !== undefined) lines.push(`  ${read.commitsPerCall.toFixed(2)} store commits per governed call (a model call and a read each)`);
	if (read.durabilityShare !== undefined) {
		lines.push(`  durable storage is ${(read.durabilityShare * 100).toFixed(0)}% of a governed call`);
	}
	const ev = read.evidencePerTurn;
	lines.push(`  evidence of one turn of ${ev.toolCalls} calls: ${ev.events} events, ${ev.auditRecords} audit records`);
	if (read.inMemoryBreakdown) lines.push(...callBreakdownLines(read.inMemoryBreakdown, "  where an in-memory governed call's time goes"));
	const mem = read.memory;
	lines.push(
		`  memory${mem.gcForced ? " after GC" : " (GC not forced)"}: heap ${mib(mem.heapAfterDirectBytes)} after direct → ${mib(mem.heapAfterGovernedBytes)} after ${mem.governedCalls} governed calls (${ratio(mem.heapRatio)}), ` +
			`RSS ${mib(mem.rssAfterDirectBytes)} → ${mib(mem.rssAfterGovernedBytes)} (${ratio(mem.rssRatio)}); heap retained ${mem.retainedHeapBytesPerCall.toFixed(0)} B per call`,
	);
	return lines;
}

function decisionsSection(dec: DecisionReport): string[] {
	const w = dec.warmUp;
	return [
		`Permission decisions (${dec.inputsPerRound} inputs × ${dec.rounds} rounds, ${dec.distinctShellCommands} distinct shell commands; ${dec.hostRules} host rules, ${dec.runDenyRules} run-deny rules)`,
		...table([
			["decider", "decisions/s", "µs median", "µs best", "µs CPU", "µs cold", "allow", "ask", "deny"],
			deciderRow("PermissionEngine.decide (parses every command)", dec.engine),
			deciderRow("naive prefix match (yardstick, UNSAFE)", dec.naive),
		]),
		`  naive / engine: ${ratio(dec.ratio)}, the price of parsing. The yardstick is the unsafe approach other agents use:`,
		`  on this mix it decided ${dec.naiveMorePermissive} of ${dec.inputsPerRound} inputs more permissively than the engine, ${dec.naiveStricter} more strictly.`,
		`  measured after ${w.passes} warm-up passes over ${(w.ms / 1000).toFixed(1)} s (${w.settled ? "until the fastest pass stopped improving" : "the limit: the fastest pass was STILL improving"}); process CPU / wall time while the engine was measured ${dec.engine.cpuShare.toFixed(2)} (below 1: it waited for a core; above 1: V8 was still compiling).`,
		"  A decision reads no file, PATH or config here: the figure depends on the CPU, on V8 having optimized the path, and on other work on the machine.",
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
			rateRow("SqliteStore.verifyAudit (the stored bytes read, hashed and linked; the head checked)", ver.sqlite, base),
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
			...(t.screenReady ? [timingRow("warden, spawn to the whole screen (status line)", t.screenReady, base)] : []),
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

export function concurrencySection(c: ConcurrencyReport): string[] {
	const cpu = (v: ConcurrencyVariant) => (v.cpuPerCallUs === undefined ? "n/a" : duration(v.cpuPerCallUs));
	const busy = (v: ConcurrencyVariant) => (v.coresBusy === undefined ? "n/a" : `${Math.round(v.coresBusy * 100)}%`);
	const lines = [
		`Many processes on one state dir: ${c.processes} \`warden run\` processes at once, ${c.callsPerProcess} governed write_file calls each, vs one process (CLI start included)`,
		...table([
			["variant", "calls/s", "wall", "CPU per call", `cores busy (of ${c.cores})`, "vs one process"],
			["one process (yardstick)", thousands(c.single.perSecond), duration(c.single.wallUs), cpu(c.single), busy(c.single), ratio(1)],
			[`${c.processes} processes at once`, thousands(c.concurrent.perSecond), duration(c.concurrent.wallUs), cpu(c.concurrent), busy(c.concurrent), ratio(c.ratio)],
		]),
		`  a process's own start (a run making no call): ${duration(c.start.wallUs)}${c.start.cpuUs === undefined ? "" : `, ${duration(c.start.cpuUs)} CPU`}`,
	];
	if (c.ceilingPerSecond !== undefined && c.ceilingRatio !== undefined) {
		const own = c.concurrent.cpuUs === undefined ? "" : `, ${Math.round((c.concurrent.cpuUs / (c.concurrent.wallUs * c.cores)) * 100)}% of them with its own processes`;
		const cause = { cpu: "CPU (the cores were busy throughout)", waiting: "waiting (the cores had time to spare)", "other work": "other work on this machine (the cores were busy, mostly not with this run)" }[c.heldBy ?? "waiting"];
		lines.push(
			`  ceiling on ${c.cores} cores at that CPU per call: ${thousands(c.ceilingPerSecond)} calls/s, ${ratio(c.ceilingRatio)} one process running a core flat out; achieved ${ratio(c.ratio)} (goal 3×), held by ${cause}${own}`,
		);
	}
	lines.push(
		`  write lock under that load: wait p99 ${duration(c.lockWaitP99Us)}, max ${duration(c.lockWaitMaxUs)}; held median ${duration(c.lockHoldMedianUs)}, p99 ${duration(c.lockHoldP99Us)}; ${c.lockWaitsOver1ms} of ${c.lockWaits} write transactions waited over 1 ms`,
	);
	return lines;
}

function groupCommitSection(g: GroupCommitReport): string[] {
	const base = g.yardstick.medianUs;
	return [
		`Group commit: audit appends from ${g.sessions} sessions at once vs one writer's fsync'd JSON lines (median of ${g.rounds} rounds × ${g.recordsPerRound} records, after ${g.warmupRounds} warm-up round(s))`,
		...table([
			["variant", "records/s", "median", "min", "max", "vs yardstick"],
			rateRow("JSON line to a file + fsync, one writer (yardstick)", g.yardstick, base),
			rateRow("SqliteStore.appendAudit, one session", g.oneSession, base),
			rateRow(`SqliteStore.appendAudit, ${g.sessions} sessions at once`, g.concurrent, base),
		]),
		`  ${ratio(g.ratio)} the yardstick's records/s (goal: at least 3×); ${g.meanBatch.toFixed(1)} appends per transaction; append wait p99 ${duration(g.appendWaitP99Us)}, write-lock wait p99 ${duration(g.lockWaitP99Us)} over ${g.lockWaits} transactions`,
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

export function llamaSection(l: LlamaOverheadReport): string[] {
	const title = `Embedded model (llama:), per generated token: the provider vs node-llama-cpp called directly, same synthetic GGUF (hidden ${l.model.hidden}, ${l.model.layers} blocks, F32, CPU, 1 thread) and prompt (median of ${l.runs} replies, after ${l.warmupRuns} warm-up)`;
	// Empty cells would read as a measurement: a skipped benchmark says so in words.
	if (!l.direct || !l.provider || l.ratio === undefined) return [title, `  not run: ${l.notRun ?? "no reason given"}`];
	const base = l.direct.medianUs;
	return [
		title,
		...table([
			["variant", "median", "min", "max", "vs direct"],
			timingRow("LlamaChat.generateResponse, history and grammar prepared (yardstick)", l.direct, base),
			timingRow("LlamaModel.complete (history, prompt count, grammar, stream, parse)", l.provider, base),
		]),
		`  provider overhead: ${ratio(l.ratio)} (goal: at most 1.1×); ${l.generatedTokens} tokens generated per reply after a ${l.promptTokens}-token prompt`,
	];
}

export function sessionSection(s: SessionBenchReport): string[] {
	const m = s.memory;
	const row = (label: string, w: SessionBenchReport["first"]) => [label, duration(w.meanUs), duration(w.medianUs), ratio(w.meanUs / s.first.meanUs), duration(w.cpuUs), ratio(w.cpuUs / s.first.cpuUs)];
	return [
		`A long session: ${thousands(s.calls)} governed read_file/list_dir calls in turns of ${s.callsPerTurn}, durable store (after a ${s.warmupCalls}-call warm-up session)`,
		...table([
			["calls", "mean", "median", "vs first", "CPU", "vs first"],
			row(`${s.first.fromCall}–${s.first.toCall} (yardstick)`, s.first),
			row(`${thousands(s.last.fromCall)}–${thousands(s.last.toCall)}`, s.last),
		]),
		`  median ratio ${ratio(s.medianRatio)}, CPU ratio ${ratio(s.cpuRatio)}; ${thousands(s.auditRecords)} audit records`,
		`  RSS${m.gcForced ? " after GC" : " (GC not forced)"} ${mib(m.rssAfterFirstBytes)} after call ${s.first.toCall} → ${mib(m.rssAtEndBytes)} at the end (${mib(m.rssGrowthBytes)} growth); heap retained ${m.retainedHeapBytesPerCall.toFixed(0)} B per call`,
	];
}

export function skillProjectionSection(s: SkillProjectionReport): string[] {
	const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
	return [
		`Skill projection: the first model request of a session with ${s.skills} skills (${s.bodyBytes}-byte bodies), as JSON of its messages and tool schemas`,
		...table([
			["variant", "bytes", "vs inlined"],
			["all skills inlined in the system prompt (yardstick)", kib(s.inlinedBytes), "1.00×"],
			["projected: catalogue + activate_skill", kib(s.projectedBytes), `${s.ratio.toFixed(2)}×`],
			["projected, the request after one skill is activated", kib(s.activatedOneBytes), `${(s.activatedOneBytes / s.inlinedBytes).toFixed(2)}×`],
		]),
		`  ${(s.reduction * 100).toFixed(1)}% fewer bytes projected; goal ≥ 60% fewer: ${s.goalMet ? "met" : "NOT met"}`,
	];
}

export function compactionSection(c: CompactionBenchReport): string[] {
	const base = c.modelCall.medianUs;
	return [
		`Compaction: Session.compact() of a turn of ${c.stepsPerRound} reads of ${c.fileBytes}-byte files (${c.summarised} items summarised) vs the summarising model call alone (median of ${c.rounds} compactions, after ${c.warmupRounds} warm-up)`,
		...table([
			["variant", "median", "min", "max", "vs model call"],
			timingRow("the summarising call straight to the scripted model (yardstick)", c.modelCall, base),
			timingRow("Session.compact(), SQLite store (WAL, synchronous=FULL)", c.compaction, base),
			timingRow("Session.compact(), in-memory store", c.compactionInMemory, base),
		]),
		`  added per compaction: ${duration(c.addedUs)} (${duration(c.addedInMemoryUs)} without durability); a real model's summary takes seconds, so this is the figure to weigh`,
	];
}

/** Where the figures came from (provenance.ts), for the table's first lines. */
export function provenanceLines(report: BenchReport): string[] {
	const env = report.environment;
	const source = "why" in env.source ? `commit ${env.source.commit ?? "unknown"} (${env.source.why})` : `commit ${env.source.commit}${env.source.dirty ? " with uncommitted changes" : ""}`;
	const load = (l: LoadAverage) => `${l.one.toFixed(2)} ${l.five.toFixed(2)} ${l.fifteen.toFixed(2)}`;
	return [
		`Warden benchmarks: ${source}; node ${env.node}, ${env.platform} ${env.arch}, ${env.cpus} × ${env.cpuModel}; ${(report.durationMs / 1000).toFixed(1)} s from ${report.startedAt}`,
		`load average (1, 5, 15 min) before ${load(env.loadBefore)}, after ${load(env.loadAfter)}${env.coresBusy === undefined ? "" : `; cores ${Math.round(100 * env.coresBusy)}% busy over the run`}${report.only ? `; only ${report.only.join(", ")}` : ""}`,
	];
}

export function formatBenchTable(report: BenchReport): string {
	const section = <T>(value: T | undefined, lines: (value: T) => string[]) => (value === undefined ? [] : ["", ...lines(value)]);
	return [
		...provenanceLines(report),
		...section(report.governedRead, governedReadSection),
		...section(report.decisions, decisionsSection),
		...(report.authority && report.leases ? ["", ...authoritySection(report.authority, report.leases)] : []),
		...section(report.appends, appendsSection),
		...section(report.auditVerify, auditVerifySection),
		...section(report.cliStart, cliStartSection),
		...section(report.recovery, recoverySection),
		...section(report.sandbox, sandboxSection),
		...section(report.jit, jitSection),
		...section(report.concurrency, concurrencySection),
		...section(report.modelTransport, modelTransportSection),
		...section(report.llama, llamaSection),
		...section(report.groupCommit, groupCommitSection),
		...section(report.mcp, mcpSection),
		...section(report.session, sessionSection),
		...section(report.compaction, compactionSection),
		...section(report.tui, tuiSection),
		...section(report.skillProjection, skillProjectionSection),
		...section(report.console, consoleSection),
		...section(report.memorySearch, memorySearchSection),
	].join("\n");
}

export function mcpSection(m: McpRoundTripReport): string[] {
	const base = m.bare.medianUs;
	return [
		`MCP round trip: one tools/call echo over stdio, per call (median of ${m.rounds} rounds × ${m.calls} calls, after ${m.warmupRounds} warm-up round(s))`,
		...table([
			["variant", "median", "min", "max", "vs bare"],
			timingRow("bare SDK Client.callTool (yardstick)", m.bare, base),
			timingRow("through Warden (decision, mcp.call, durable evidence)", m.governed, base),
		]),
		`  overhead ${duration(m.overheadUs)} per call; goal ≤ 1.2× + 1 ms: ${m.goalMet ? "met" : "NOT met"}`,
	];
}

export function memorySearchSection(m: MemorySearchReport): string[] {
	const base = m.plainFts.medianUs;
	return [
		`Memory search: ${m.records} records, ${m.queries} two-word queries, top ${m.limit} (median of ${m.rounds} rounds, after ${m.warmupRounds} warm-up round(s))`,
		...table([
			["variant", "median", "min", "max", "vs plain"],
			timingRow("plain FTS5 MATCH ordered by bm25 (yardstick)", m.plainFts, base),
			timingRow("memory search (rows, filters, interpretable score)", m.memorySearch, base),
		]),
		`  goal p50 ≤ 5 ms and ≤ 1.5× plain FTS5: ${m.goalMet ? "met" : "NOT met"}`,
	];
}
