/**
 * The benchmark's options and its JSON report. Every figure is measured against a yardstick in
 * the same process and run, and the comparison is given as a ratio, so reports from different
 * machines can be compared by their ratios rather than their absolute times.
 */

import type { ConsoleBenchReport } from "./console-bench.js";

export interface BenchOptions {
	/** read_file calls in one governed turn; per-call time is the turn's time divided by this. Default 100. */
	readCalls?: number;
	/** Measured rounds per variant of the governed-read benchmark; medians are taken over them. Default 9. */
	rounds?: number;
	/** Unmeasured rounds per variant before measuring. Default 1. */
	warmupRounds?: number;
	/** Size of the file that is read. Default 4096. */
	fileBytes?: number;
	/** Also run the pipeline over an in-memory Store, to split off the cost of durability. Default true. */
	inMemorySplit?: boolean;
	/** Measured passes over the decision mix. Default 25. */
	decisionRounds?: number;
	/** Copies of each decision template, each with different arguments. Default 24. */
	decisionVariants?: number;
	/** The least and the most milliseconds of the decision warm-up (decisions.ts). Defaults 1000 and 10000. */
	decisionWarmUpMs?: number;
	decisionWarmUpLimitMs?: number;
	/** Appends per variant per round of the append benchmark; each is durable before the next. Default 200. */
	appendsPerRound?: number;
	/** Audit records in the chain that is verified: the append benchmark's records, topped up to this many. Default 5000. */
	chainRecords?: number;
	/** Measured child processes per command of the cold-start benchmark. Default 9. */
	cliRuns?: number;
	/** Capabilities held in the authority benchmark. Default 1000. */
	authorityCapabilities?: number;
	/** Leases granted and consumed per round. Default 1000. */
	leaseChecks?: number;
	/** Operation rows in the smaller history the recovery benchmark reopens, the pending ones included. Default 100000. */
	recoveryRows?: number;
	/** Operation rows in the larger history. Default 1000000. */
	recoveryLargeRows?: number;
	/** Operations a crash left pending, recovered on each reopen. Default 1000. */
	recoveryPending?: number;
	/** Measured reopens per history (each recovers `recoveryPending` operations, one commit each). Default 3. */
	recoveryRounds?: number;
	/** Streamed Anthropic answers per round in the model-transport benchmark. Default 50. */
	transportCalls?: number;
	/** Bytes of the file the model-transport benchmark downloads. Default 64 MiB. */
	downloadBytes?: number;
	/** Processes at once in the concurrency benchmark. Default 4. */
	concurrentProcesses?: number;
	/** Governed calls per process in the concurrency benchmark. Default 50. */
	concurrentCalls?: number;
	/** Sessions appending at once in the group-commit benchmark. Default 8. */
	groupCommitSessions?: number;
	/** Measured starts of `warden` and of `warden --version` in a pseudo-terminal. Default 5. */
	tuiRuns?: number;
	/** Lines of shell output under which keystroke echo is timed. Default 10 000. */
	tuiLines?: number;
	/** Keys typed at the idle prompt, and at most while the output goes through. Default 40. */
	tuiKeystrokes?: number;
	/** Measured runs of `true`, plain and in bubblewrap. Default 25. */
	sandboxRuns?: number;
	/** Measured cold JIT calls and `node -e` spawns. Default 25. */
	jitRuns?: number;
	/** Replies per variant in the llama overhead benchmark. */
	llamaRuns?: number;
	/** MCP echo calls per round of the MCP round-trip benchmark. */
	mcpCalls?: number;
	/** Memory records searched by the memory search benchmark. */
	memoryRecords?: number;
	memoryQueries?: number;
	/** The `warden` entry point the cold-start benchmark runs. Default: bin/warden.js of this checkout or package. */
	wardenBin?: string;
	/** Governed calls in the long-session benchmark. Default 10000. */
	sessionCalls?: number;
	/** Calls per turn of that session, and the size of the first and last windows compared. Default 100. */
	sessionCallsPerTurn?: number;
	/** Measured compactions (Session.compact) in the compaction benchmark. Default 9. */
	compactionRounds?: number;
	/** read_file steps of the turn before each measured compaction. Default 8. */
	compactionSteps?: number;
	/** Skills in the skill projection benchmark. Default 30. */
	skillCount?: number;
	/** Bytes of each skill's SKILL.md body there. Default 4096. */
	skillBodyBytes?: number;
	/** Events another process appends in the console's feed-latency benchmark. Default 200. */
	consoleEvents?: number;
	/** Audit records in the console benchmark's small chain and its large one. Defaults 10000 and 1000000. */
	consoleSmallRecords?: number;
	consoleLargeRecords?: number;
	/** Run only these benchmarks (`--only`); default: all of them. */
	only?: readonly string[];
	/** Where the temporary workspace and state directories are made. Default: the OS temp dir. */
	tempDir?: string;
	/** Receives a line as each phase starts, for a caller that shows progress. */
	onProgress?: (line: string) => void;
}

/** Per-call times of one variant: one sample per measured round, in microseconds. */
export interface CallTiming {
	medianUs: number;
	minUs: number;
	maxUs: number;
	samplesUs: number[];
}

/** A CallTiming of one operation, with the rate its median gives. */
export interface RateTiming extends CallTiming {
	/** 1e6 / medianUs. */
	perSecond: number;
}

/** Heap and RSS after a garbage collection, before and after the governed run. */
export interface MemoryReport {
	/** False when a collection could not be forced; the figures then include garbage. */
	gcForced: boolean;
	heapAfterDirectBytes: number;
	heapAfterGovernedBytes: number;
	/** heapAfterGoverned / heapAfterDirect. */
	heapRatio: number;
	rssAfterDirectBytes: number;
	rssAfterGovernedBytes: number;
	/** rssAfterGoverned / rssAfterDirect. */
	rssRatio: number;
	/** Heap still held after the governed run, per measured governed call (may be negative: noise). */
	retainedHeapBytesPerCall: number;
	/** Governed calls measured between the two snapshots. */
	governedCalls: number;
}

export interface GovernedReadReport {
	fileBytes: number;
	callsPerRound: number;
	rounds: number;
	warmupRounds: number;
	/** The in-memory variant's yardstick: `fs.promises.readFile` of the same file. */
	direct: CallTiming;
	/** The durable variant's yardstick: the same read plus one fsync'd append of evidenceBytesPerCall bytes of a governed turn's evidence. */
	durableYardstick: CallTiming;
	/** A governed turn's events, audit records and messages as JSON lines, per call. */
	evidenceBytesPerCall: number;
	/** The whole pipeline with the SQLite store (WAL, synchronous=FULL). */
	governed: CallTiming;
	/** governed.medianUs / durableYardstick.medianUs. */
	ratio: number;
	/** Store transactions committed per governed call (each step: one model call and one read), over the measured turns. */
	commitsPerCall: number;
	/** The same pipeline over an in-memory Store; absent when not run. */
	governedInMemory?: CallTiming;
	/** governedInMemory.medianUs / direct.medianUs. */
	inMemoryRatio?: number;
	/** Share of the governed per-call time spent on durable storage: 1 − inMemory / governed. */
	durabilityShare?: number;
	/** Evidence one governed turn left behind (the last measured round). */
	evidencePerTurn: { toolCalls: number; events: number; auditRecords: number };
	memory: MemoryReport;
	/** Where an in-memory governed call's time goes, from a CPU profile of one more round; absent when not run. */
	inMemoryBreakdown?: CallBreakdown;
}

/** A profiled round's time per call, by the component whose code was running (src/surfaces/bench/call-breakdown.ts). */
export interface CallBreakdown {
	/** Calls in the profiled round. */
	calls: number;
	/** The profiler's sampling interval, in microseconds. */
	samplingUs: number;
	/** Wall time of the profiled round per call (the profiler's own cost included). */
	profiledUsPerCall: number;
	/** Largest first; `usPerCall` of all components adds up to profiledUsPerCall. */
	components: { component: string; usPerCall: number; share: number }[];
}

export type DecisionOutcome = "allow" | "ask" | "deny";

export interface DeciderTiming {
	/** Decisions made in the measured rounds: inputs per round × rounds. */
	decisions: number;
	/** Inputs per round / the median round time. */
	perSecond: number;
	/** The median round time / inputs per round, in microseconds. */
	medianUsPerDecision: number;
	/** The fastest round's time / inputs per round: the least disturbed by other work on the machine. */
	bestUsPerDecision: number;
	/** The median round's process CPU time / inputs per round; unlike wall time, it does not grow while the process waits for a core. */
	cpuUsPerDecision: number;
	/**
	 * Process CPU time / wall time over the measured rounds: below 1 where the decider waited for a
	 * core (other work on the machine); above 1 where the process's other threads worked meanwhile
	 * (V8 still compiling, or collecting garbage).
	 */
	cpuShare: number;
	/** The first, cold pass over the inputs (V8 still interpreting), per decision. */
	firstPassUsPerDecision: number;
	/** How the inputs of one round were decided. */
	outcomes: Record<DecisionOutcome, number>;
}

export interface DecisionReport {
	inputsPerRound: number;
	rounds: number;
	/** Distinct shell commands in one round; when this exceeds the engine's parse cache, every shell decision parses. */
	distinctShellCommands: number;
	hostRules: number;
	runDenyRules: number;
	/** PermissionEngine.decide: parsing, wrappers, flag normalization, hardline, Algorithm 2. */
	engine: DeciderTiming;
	/** The yardstick: literal prefix matching of the raw argument against the same rules. */
	naive: DeciderTiming;
	/**
	 * The unmeasured passes before the measured rounds: at least WARM_UP_MS, then until the engine's
	 * fastest pass stopped improving (V8 compiles the path to its optimizing tier in background
	 * threads, slower where the cores are busy); `settled` is false where the limit came first.
	 */
	warmUp: { ms: number; passes: number; settled: boolean };
	/** naive.perSecond / engine.perSecond: what parsing costs per decision, as a factor. */
	ratio: number;
	/** Inputs of one round the naive matcher decided more permissively than the engine (allow where ask/deny, ask where deny). */
	naiveMorePermissive: number;
	/** Inputs of one round the naive matcher decided more strictly than the engine. */
	naiveStricter: number;
}

/**
 * Durable appends, one commit each, the way the evidence recorder writes them. The yardstick is
 * the cheapest log with the same durability: a JSON line appended to a file and fsync'd.
 */
export interface AppendReport {
	appendsPerRound: number;
	rounds: number;
	warmupRounds: number;
	/** Mean bytes of an appended event's JSON. */
	eventBytes: number;
	/** Mean bytes of an appended audit input's JSON; the yardstick writes these lines. */
	auditBytes: number;
	/** The yardstick: `fs.appendFileSync` of the audit input's JSON line, then `fs.fsyncSync`. */
	yardstick: RateTiming;
	/** SqliteStore.appendEvent (WAL, synchronous=FULL). */
	event: RateTiming;
	/** SqliteStore.appendAudit: chained, hashed, and the head updated in one IMMEDIATE transaction. */
	audit: RateTiming;
	/** The bench's in-memory Store.appendAudit: the chain's CPU cost with no disk at all. */
	auditInMemory: RateTiming;
	/** event.medianUs / yardstick.medianUs. */
	eventRatio: number;
	/** audit.medianUs / yardstick.medianUs. */
	auditRatio: number;
	/** auditInMemory.medianUs / yardstick.medianUs. */
	auditInMemoryRatio: number;
}

/** Walking the audit chain; per-record times, so the rates are records verified per second. */
export interface AuditVerifyReport {
	/** Records in the verified chain. */
	records: number;
	rounds: number;
	warmupRounds: number;
	/** Mean bytes hashed per record: the previous hash, a newline and the record's canonical JSON. */
	hashedBytes: number;
	/** The yardstick, the floor of the work: sha256 of each record's hashed bytes, prepared beforehand. */
	yardstick: RateTiming;
	/** verifyChain over records already in memory: canonical JSON and sha256, no database. */
	inMemory: RateTiming;
	/** SqliteStore.verifyAudit: read each record's stored bytes, hash them, check the links and the head. */
	sqlite: RateTiming;
	/** inMemory.medianUs / yardstick.medianUs. */
	inMemoryRatio: number;
	/** sqlite.medianUs / yardstick.medianUs. */
	ratio: number;
}

/** Wall time of a child process from spawn to exit, per run. */
export interface CliStartReport {
	runs: number;
	warmupRuns: number;
	/** The yardstick: `node -e 0`. */
	node: CallTiming;
	/** `node bin/warden.js --version`: loading the CLI. */
	version: CallTiming;
	/** `node bin/warden.js audit verify --state-dir <empty state>`: also opens SQLite and walks an empty chain. */
	auditVerify: CallTiming;
	/** version.medianUs / node.medianUs. */
	versionRatio: number;
	/** auditVerify.medianUs / node.medianUs. */
	auditVerifyRatio: number;
}

/** Capability admission at the primitive, per decision, over the same request mix. */
export interface AuthorityReport {
	capabilitiesHeld: number;
	presetGrants: number;
	requestsPerRound: number;
	rounds: number;
	warmupRounds: number;
	/** Requests of the mix each authority admits (the rest are refused). */
	admitted: { held: number; preset: number };
	/** Authority.admit holding `capabilitiesHeld` grants. */
	held: RateTiming;
	/** The yardstick: Authority.admit holding the 10-grant preset. */
	preset: RateTiming;
	/** held.medianUs / preset.medianUs: what holding many grants costs per decision. */
	ratio: number;
}

/** An "allow once" lease: granted with the arguments' digest, then consumed against a fresh digest. */
export interface LeaseReport {
	checksPerRound: number;
	rounds: number;
	warmupRounds: number;
	/** Bytes of the arguments' JSON that are digested. */
	argumentsBytes: number;
	/** The floor: one sha256 of the canonical arguments. */
	digest: RateTiming;
	/** LeaseBook.grant + LeaseBook.consume, both digests included. */
	lease: RateTiming;
	/** lease.medianUs / digest.medianUs. */
	ratio: number;
}

/**
 * Reopening a state dir a crash left with pending operations: SqliteStore.open and
 * recoverOperations, per reopen. The same pending work over a small and a large history.
 */
export interface RecoveryBenchReport {
	/** Operations left pending before each reopen. */
	pending: number;
	/** Operation rows in the smaller history, pending included (it grows by `pending` per reopen, as recovered rows join it). */
	rows: number;
	/** Operation rows in the larger history, likewise. */
	largeRows: number;
	rounds: number;
	warmupRounds: number;
	/** Milliseconds to seed each history's settled rows (one transaction). */
	seedMs: { rows: number; largeRows: number };
	/** The yardstick: a state dir holding only the pending rows. */
	yardstick: CallTiming;
	/** Reopen over `rows` rows. */
	reopen: CallTiming;
	/** Reopen over `largeRows` rows. */
	reopenLarge: CallTiming;
	/** reopenLarge.medianUs / reopen.medianUs: the goal is close to 1, recovery bounded by pending rows. */
	ratio: number;
	/** reopen.medianUs / yardstick.medianUs. */
	reopenRatio: number;
	/** reopenLarge.medianUs / yardstick.medianUs. */
	reopenLargeRatio: number;
}

/** `true` through runShell: the price of a bubblewrap and of a Landlock sandbox per command. */
export interface SandboxSpawnReport {
	runs: number;
	warmupRuns: number;
	profile: "workspace-write";
	network: false;
	/** The yardstick: `bash -c true` through runShell, unwrapped. */
	plain: CallTiming;
	/** The same through bwrap on a temporary workspace; absent when bwrap does not work here. */
	sandboxed?: CallTiming;
	/** sandboxed.medianUs / plain.medianUs. */
	ratio?: number;
	/** Why the sandboxed variant was not run. */
	notRun?: string;
	/** The same through the Landlock helper (landlock-exec), in the same run; absent when Landlock does not work here. */
	landlock?: CallTiming;
	/** landlock.medianUs / plain.medianUs. */
	landlockRatio?: number;
	/** Why the Landlock variant was not run. */
	landlockNotRun?: string;
}

/** A JIT tool call (fresh QuickJS runtime and context, default limits) against spawning a process for the same work. */
export interface JitColdStartReport {
	runs: number;
	warmupRuns: number;
	limits: { memoryBytes: number; stackBytes: number; deadlineMs: number; maxResultBytes: number; maxSyscalls: number };
	/** The first call in this process, which also loads and compiles the wasm module (once per process), in microseconds. */
	firstCallUs: number;
	/** runIsolated of `input.a + input.b`, after the module is loaded. */
	jit: CallTiming;
	/** The yardstick: `node -e` computing the same sum and printing it, spawn to exit. */
	spawn: CallTiming;
	/** spawn.medianUs / jit.medianUs: the goal is at least 20. */
	speedup: number;
}

/** Many processes' governed calls on one state dir against one process's (src/surfaces/bench/concurrency-bench.ts). */
export interface ConcurrencyReport {
	processes: number;
	callsPerProcess: number;
	/** Cores this machine offers (os.availableParallelism). */
	cores: number;
	/** One process making no call, spawn to exit (the median of a few): the start every process pays. */
	start: { wallUs: number; cpuUs?: number };
	/** The yardstick: one process making callsPerProcess calls. */
	single: ConcurrencyVariant;
	/** `processes` processes at once, each making callsPerProcess calls. */
	concurrent: ConcurrencyVariant;
	/** concurrent.perSecond / single.perSecond. */
	ratio: number;
	/** cores / the many-process CPU per call: the most calls per second these cores allow (absent off Linux). */
	ceilingPerSecond?: number;
	/** ceilingPerSecond over one process running a core flat out (1 / its CPU per call): the best ratio these cores allow. */
	ceilingRatio?: number;
	/**
	 * What held the many-process run: "waiting" when the cores were not near fully busy; "cpu" when
	 * they were, mostly with its own processes; "other work" when they were, mostly with others'.
	 */
	heldBy?: "cpu" | "waiting" | "other work";
	/** Write transactions timed under the concurrent load. */
	lockWaits: number;
	/** Those that waited over a millisecond for it (whichever of SQLite's handler or the store's own sleeps waited). */
	lockWaitsOver1ms: number;
	/** The 99th percentile of their waits for the write lock. */
	lockWaitP99Us: number;
	lockWaitMaxUs: number;
	/** How long a transaction held the write lock (BEGIN IMMEDIATE taken to COMMIT returned). */
	lockHoldMedianUs: number;
	lockHoldP99Us: number;
}

/** One variant of the concurrency benchmark; the CPU figures are absent off Linux. */
export interface ConcurrencyVariant {
	perSecond: number;
	wallUs: number;
	/** User + system CPU of all its processes. */
	cpuUs?: number;
	/** cpuUs over all its governed calls, their processes' start included. */
	cpuPerCallUs?: number;
	/** How busy all cores were meanwhile (0–1), whoever's work it was. */
	coresBusy?: number;
}

/** Warden's model transport against the same work done bare (src/surfaces/bench/model-transport-bench.ts). */
export interface ModelTransportReport {
	calls: number;
	downloadBytes: number;
	rounds: number;
	warmupRounds: number;
	/** Per streamed answer: AnthropicModel.complete against iterating the SDK's own stream; ratio = warden / sdk. */
	anthropic: { sdk: CallTiming; warden: CallTiming; ratio: number };
	/** Per download: downloadFile (redirect, .partial, sha256, rename) against fetch piped to a file; ratio = downloader / fetch. */
	download: { fetch: CallTiming; downloader: CallTiming; ratio: number; mibPerSecond: number };
}

/**
 * The embedded model's overhead per generated token (src/surfaces/bench/llama-bench.ts):
 * LlamaModel.complete against node-llama-cpp's LlamaChat called directly, same model and prompt.
 */
export interface LlamaOverheadReport {
	runs: number;
	warmupRuns: number;
	/** The synthetic GGUF both variants run (random weights, F32). */
	model: { hidden: number; layers: number; contextSize: number };
	/** Characters of the reply's one string, which fixes its length. */
	replyChars: number;
	/** Tokens of the prompt (system, protocol, one tool, the task). */
	promptTokens?: number;
	/** Tokens each reply generated, the same in both variants. */
	generatedTokens?: number;
	/** The yardstick, per generated token: LlamaChat.generateResponse with the history and grammar prepared beforehand. */
	direct?: CallTiming;
	/** LlamaModel.complete, per generated token. */
	provider?: CallTiming;
	/** provider.medianUs / direct.medianUs: the goal is at most 1.1. */
	ratio?: number;
	/** Why it was not run (the llama runtime is not installed). */
	notRun?: string;
}

/** Audit appends from many sessions at once against one writer's fsync'd JSON lines (src/surfaces/bench/group-commit.ts). */
export interface GroupCommitReport {
	sessions: number;
	/** Records appended per round in every variant. */
	recordsPerRound: number;
	rounds: number;
	warmupRounds: number;
	/** The yardstick: one writer, `fs.appendFileSync` of the audit input's JSON line, then `fs.fsyncSync`. */
	yardstick: RateTiming;
	/** One session's appendAudit, each awaited before the next: one commit each. */
	oneSession: RateTiming;
	/** `sessions` sessions appending at once, each awaiting its own: what arrives together commits together. */
	concurrent: RateTiming;
	/** concurrent.perSecond / yardstick.perSecond: the goal is at least 3. */
	ratio: number;
	/** oneSession.perSecond / yardstick.perSecond. */
	oneSessionRatio: number;
	/** Mean appends per committed transaction under the concurrent load. */
	meanBatch: number;
	/** The 99th percentile of an append's wait under that load, from the call to its batch being durable. */
	appendWaitP99Us: number;
	/** Write transactions timed (all variants). */
	lockWaits: number;
	/** The 99th percentile of their waits for the write lock. */
	lockWaitP99Us: number;
}

/** Per-call time over a range of a long session's calls (src/surfaces/bench/session-bench.ts). */
export interface SessionWindow {
	fromCall: number;
	toCall: number;
	meanUs: number;
	medianUs: number;
	/** This process's CPU time (user and system) over the window, per call. */
	cpuUs: number;
}

/** One long scripted session: its last calls against its first (src/surfaces/bench/session-bench.ts). */
export interface SessionBenchReport {
	calls: number;
	callsPerTurn: number;
	/** Calls of a separate session run before, so the first window is not the JIT's warm-up. */
	warmupCalls: number;
	/** The yardstick: the session's first calls. */
	first: SessionWindow;
	last: SessionWindow;
	/** last.meanUs / first.meanUs: the goal is at most 1.2. */
	ratio: number;
	/** last.medianUs / first.medianUs, which a stray pause on a shared machine moves less. */
	medianRatio: number;
	/** last.cpuUs / first.cpuUs: the work per call, whatever else the machine was doing. */
	cpuRatio: number;
	/** Audit records the session left. */
	auditRecords: number;
	/** After a forced collection, once the first window is done and at the end. */
	memory: {
		gcForced: boolean;
		rssAfterFirstBytes: number;
		rssAtEndBytes: number;
		/** The goal is at most 50 MB. */
		rssGrowthBytes: number;
		heapAfterFirstBytes: number;
		heapAtEndBytes: number;
		retainedHeapBytesPerCall: number;
	};
}

/** A compaction (Session.compact) against the summarising model call alone (src/surfaces/bench/compaction-bench.ts). */
export interface CompactionBenchReport {
	rounds: number;
	warmupRounds: number;
	/** read_file steps of the turn before each compaction; each reads a `fileBytes` file. */
	stepsPerRound: number;
	fileBytes: number;
	/** Items each compaction summarised (median). */
	summarised: number;
	/** The yardstick: the same summarising request straight to the same (scripted) model. */
	modelCall: CallTiming;
	/** Session.compact() over the SQLite store. */
	compaction: CallTiming;
	/** The same over the in-memory store: what is left without durability. */
	compactionInMemory: CallTiming;
	/** compaction.medianUs - modelCall.medianUs: Warden's added wall time per compaction. */
	addedUs: number;
	addedInMemoryUs: number;
	/** compaction.medianUs / modelCall.medianUs. */
	ratio: number;
}

/** Keystroke-to-echo latencies, in milliseconds. */
export interface EchoTiming {
	samples: number;
	p50Ms: number;
	p95Ms: number;
	maxMs: number;
}

/** The interactive terminal (src/surfaces/bench/tui-bench.ts). */
export interface TuiBenchReport {
	runs: number;
	warmupRuns: number;
	/** `warden --version` in a pseudo-terminal, spawn to exit: the yardstick. */
	version: CallTiming;
	/** `warden` in a pseudo-terminal, spawn to the idle prompt drawn. */
	readyPrompt: CallTiming;
	/** readyPrompt / version medians (goal ≤ 2). */
	readyRatio: number;
	/** `warden` spawn to the whole screen drawn (its status line): the first prompt comes before it. */
	screenReady?: CallTiming;
	/** Lines the `!` command printed under load. */
	lines: number;
	idleEcho: EchoTiming;
	loadedEcho: EchoTiming;
	/** loadedEcho.p95 / idleEcho.p95. */
	echoRatio: number;
}

/** Load average of the machine (os.loadavg), over 1, 5 and 15 minutes. */
export interface LoadAverage {
	one: number;
	five: number;
	fifteen: number;
}

/** The commit of the checkout that was measured; `commit` is null, and `why` says why, where it is not a git checkout. */
export type CommitProvenance = { commit: string; dirty: boolean } | { commit: string | null; why: string };

/** What a figure depends on besides the code: the machine, the runtime, the commit, and how busy the machine was. */
export interface BenchEnvironment {
	node: string;
	platform: string;
	arch: string;
	cpus: number;
	cpuModel: string;
	source: CommitProvenance;
	loadBefore: LoadAverage;
	loadAfter: LoadAverage;
	/**
	 * How busy all cores were over the run (0–1, this process's work and anyone else's), from
	 * /proc/stat; absent off Linux. Unlike the load average it does not lag the run by minutes.
	 */
	coresBusy?: number;
}

/** Every benchmark's section of the report, by the name `--only` takes. */
export interface BenchSections {
	governedRead: GovernedReadReport;
	decisions: DecisionReport;
	authority: AuthorityReport;
	leases: LeaseReport;
	appends: AppendReport;
	auditVerify: AuditVerifyReport;
	cliStart: CliStartReport;
	recovery: RecoveryBenchReport;
	sandbox: SandboxSpawnReport;
	jit: JitColdStartReport;
	concurrency: ConcurrencyReport;
	modelTransport: ModelTransportReport;
	llama: LlamaOverheadReport;
	groupCommit: GroupCommitReport;
	/** An MCP round trip through Warden against the bare SDK client (src/surfaces/bench/mcp-bench.ts). */
	mcp: McpRoundTripReport;
	session: SessionBenchReport;
	compaction: CompactionBenchReport;
	/** The interactive terminal in a pseudo-terminal (src/surfaces/bench/tui-bench.ts); absent where no pseudo-terminal could be opened. */
	tui: TuiBenchReport;
	/** The first request's bytes with skills projected vs inlined (src/surfaces/bench/skill-projection-bench.ts). */
	skillProjection: SkillProjectionReport;
	/** The operator console's feed latency and audit pages (src/surfaces/bench/console-bench.ts). */
	console: ConsoleBenchReport;
	/** Memory search with the interpretable score vs a plain FTS5 query (src/surfaces/bench/memory-search-bench.ts). */
	memorySearch: MemorySearchReport;
}

export type BenchName = keyof BenchSections;

/**
 * One run's report: the sections of the benchmarks that ran (all of them, unless `only` names
 * some), each beside its yardstick.
 */
export interface BenchReport extends Partial<BenchSections> {
	schema: "warden.bench/3";
	startedAt: string;
	durationMs: number;
	environment: BenchEnvironment;
	/** The benchmarks `--only` asked for; absent when every benchmark ran. */
	only?: BenchName[];
}

/** The first model request of a session with `skills` skills projected (catalogue + activate_skill) against the same skills inlined. */
export interface SkillProjectionReport {
	skills: number;
	bodyBytes: number;
	/** Bytes (JSON of messages and tool schemas) of the first request, skills projected. */
	projectedBytes: number;
	/** The same request with every body inlined in the system prompt (the yardstick). */
	inlinedBytes: number;
	/** The projected session's next request, after it activated one skill. */
	activatedOneBytes: number;
	/** projectedBytes / inlinedBytes. */
	ratio: number;
	/** 1 - ratio. */
	reduction: number;
	/** reduction ≥ 60%. */
	goalMet: boolean;
}

/** One memory search, per query: ranked as memory_search ranks vs a plain FTS5 MATCH on the same table. */
export interface MemorySearchReport {
	records: number;
	queries: number;
	rounds: number;
	warmupRounds: number;
	/** Results asked for per query. */
	limit: number;
	/** Results memory search returned per query, and the plain query. */
	meanHits: number;
	meanPlainHits: number;
	/** The yardstick: SELECT … WHERE memory_fts MATCH ? ORDER BY bm25 LIMIT n. */
	plainFts: CallTiming;
	/** Candidates joined to their rows, filtered, each scored term by term, the top n. */
	memorySearch: CallTiming;
	/** memorySearch.medianUs / plainFts.medianUs. */
	ratio: number;
	/** p50 ≤ 5 ms and ratio ≤ 1.5. */
	goalMet: boolean;
}

/** One MCP tools/call echo round trip, per call: through a governed session vs the bare SDK client. */
export interface McpRoundTripReport {
	calls: number;
	rounds: number;
	warmupRounds: number;
	/** The yardstick: Client.callTool over stdio, connected once per round. */
	bare: CallTiming;
	/** The same call proposed by a scripted model and run through a Warden session. */
	governed: CallTiming;
	/** governed.medianUs / bare.medianUs. */
	ratio: number;
	/** governed.medianUs - bare.medianUs. */
	overheadUs: number;
	/** governed ≤ 1.2 × bare + 1 ms. */
	goalMet: boolean;
}
