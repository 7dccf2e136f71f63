/**
 * The cost of one governed read_file call, end to end through the embedding API: model step,
 * normalization, schema validation, permission decision, events, durable audit records, the
 * kernel's fs.read and the result message. The durable variant's yardstick is a plain
 * `fs.promises.readFile` of the same file plus one fsync'd append of as many bytes of the same
 * evidence (what the cheapest durable log would pay); the in-memory variant's is the bare read.
 * Commits per call are counted from the store's committed groups.
 */
import { appendFileSync, closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Runtime } from "../../index.js";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import type { Store } from "../../store/store.js";
import { ScriptedModel } from "../../models/scripted.js";
import type { CallBreakdown, GovernedReadReport } from "./bench-types.js";
import { BenchError } from "./bench-error.js";
import { profileCalls } from "./call-breakdown.js";
import { callTiming } from "./call-timing.js";
import { heapSnapshot } from "./heap-snapshot.js";
import { MemoryStore } from "./memory-store.js";

export interface GovernedReadOptions {
	readCalls: number;
	rounds: number;
	warmupRounds: number;
	fileBytes: number;
	inMemorySplit: boolean;
	tempDir: string;
	onProgress: (line: string) => void;
}

const FILE = "src/notes.txt";

interface TurnFigures {
	perCallUs: number;
	events: number;
	auditRecords: number;
	session: string;
	/** Transactions committed while the turn ran (undefined: not counted). */
	commits?: number;
	/** With `profiled`: where the turn's time went, the send alone profiled. */
	breakdown?: CallBreakdown;
}

/** Printable text of exactly `bytes` bytes, so the read is the same work every time. */
function fileContent(bytes: number): string {
	const line = "The model proposes; the host decides; every effect is recorded.\n";
	return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

function readPlan(calls: number): unknown {
	const steps: unknown[] = [];
	for (let i = 0; i < calls; i++) steps.push({ tool_calls: [{ name: "read_file", arguments: { path: FILE } }] });
	steps.push({ text: "read it" });
	return { description: "benchmark: one read_file per step", steps };
}

/** One governed turn of `calls` reads in a fresh session; fails loudly if any read did not complete. */
async function governedTurn(
	runtime: Runtime,
	workspace: string,
	calls: number,
	expected: string,
	batches?: readonly number[],
	profiled = false,
): Promise<TurnFigures> {
	const session = await runtime.openSession({
		workspace,
		model: ScriptedModel.fromPlan(readPlan(calls), "scripted:bench"),
		mode: "workspace-write",
		maxSteps: calls + 1,
	});
	let events = 0;
	let lastBytes = -1;
	const batchesBefore = batches?.length ?? 0;
	const send = () =>
		session.send("read the notes", {
			onEvent: (event) => {
				events++;
				if (event.kind === "tool.completed") lastBytes = event.payload.output_bytes;
			},
		});
	const started = performance.now();
	let result: Awaited<ReturnType<typeof send>> | undefined;
	const breakdown = profiled
		? await profileCalls(async () => {
				result = await send();
			}, calls)
		: undefined;
	if (!profiled) result = await send();
	const elapsed = performance.now() - started;
	const commits = batches ? batches.length - batchesBefore : undefined;
	await session.end();
	if (result?.status !== "completed" || result.toolCalls.completed !== calls) {
		throw new BenchError(`governed turn did not complete all ${calls} reads: ${result?.status}, ${JSON.stringify(result?.toolCalls)}`);
	}
	if (lastBytes !== Buffer.byteLength(expected)) {
		throw new BenchError(`governed read returned ${lastBytes} bytes, expected ${Buffer.byteLength(expected)}`);
	}
	const auditRecords = (await runtime.listAudit({ session: session.id })).length;
	return {
		perCallUs: (elapsed * 1000) / calls,
		events,
		auditRecords,
		session: session.id,
		...(commits === undefined ? {} : { commits }),
		...(breakdown ? { breakdown } : {}),
	};
}

/**
 * The evidence one governed turn left (its events, audit records and messages as JSON lines),
 * cut into one piece per call: what the yardstick appends and fsyncs for each read.
 */
async function evidencePieces(store: Store, session: string, calls: number): Promise<Buffer[]> {
	const rows: unknown[] = [...(await store.listEvents(session)), ...(await store.listAudit({ session })), ...(await store.listMessages(session))];
	const bytes = Buffer.from(rows.map((row) => `${JSON.stringify(row)}\n`).join(""));
	const size = Math.ceil(bytes.length / calls);
	return Array.from({ length: calls }, (_, i) => bytes.subarray(i * size, Math.min(bytes.length, (i + 1) * size)));
}

/** The durable yardstick: each read followed by one append of its piece of evidence and an fsync. */
async function durableRound(file: string, log: number, pieces: readonly Buffer[], expected: string): Promise<number> {
	let bytes = 0;
	const started = performance.now();
	for (const piece of pieces) {
		bytes += (await readFile(file, "utf8")).length;
		appendFileSync(log, piece);
		fsyncSync(log);
	}
	const elapsed = performance.now() - started;
	if (bytes !== expected.length * pieces.length) throw new BenchError(`durable yardstick reads returned ${bytes} characters, expected ${expected.length * pieces.length}`);
	return (elapsed * 1000) / pieces.length;
}

async function directRound(file: string, calls: number, expected: string): Promise<number> {
	let bytes = 0;
	const started = performance.now();
	for (let i = 0; i < calls; i++) bytes += (await readFile(file, "utf8")).length;
	const elapsed = performance.now() - started;
	if (bytes !== expected.length * calls) throw new BenchError(`direct reads returned ${bytes} characters, expected ${expected.length * calls}`);
	return (elapsed * 1000) / calls;
}

export async function benchGovernedRead(options: GovernedReadOptions): Promise<GovernedReadReport> {
	const { readCalls: calls, rounds, warmupRounds, onProgress } = options;
	const base = realpathSync(mkdtempSync(join(options.tempDir || tmpdir(), "warden-bench-")));
	const runtimes: Runtime[] = [];
	let log: number | undefined;
	try {
		const workspace = join(base, "workspace");
		mkdirSync(join(workspace, "src"), { recursive: true });
		const content = fileContent(options.fileBytes);
		const file = join(workspace, FILE);
		writeFileSync(file, content);

		const stateDir = join(base, "state");
		const durableStore = openSqliteStore(stateDir);
		const durable = await Runtime.open({ stateDir, store: durableStore });
		runtimes.push(durable);
		log = openSync(join(base, "evidence.jsonl"), "a");
		const inMemory = options.inMemorySplit ? await Runtime.open({ stateDir: join(base, "state-memory"), store: new MemoryStore() }) : undefined;
		if (inMemory) runtimes.push(inMemory);

		onProgress(`governed read: warm-up (${warmupRounds} round(s) of ${calls} calls per variant)`);
		// The yardstick's bytes are the evidence of a real governed turn of the same calls.
		const sample = await governedTurn(durable, workspace, calls, content);
		const pieces = await evidencePieces(durableStore, sample.session, calls);
		for (let i = 0; i < warmupRounds; i++) {
			await directRound(file, calls, content);
			await durableRound(file, log, pieces, content);
			await governedTurn(durable, workspace, calls, content);
			if (inMemory) await governedTurn(inMemory, workspace, calls, content);
		}

		onProgress(`governed read: direct fs.promises.readFile, and readFile + one fsync'd evidence append, ${rounds} rounds`);
		const direct: number[] = [];
		const durableYardstick: number[] = [];
		for (let i = 0; i < rounds; i++) {
			direct.push(await directRound(file, calls, content));
			durableYardstick.push(await durableRound(file, log, pieces, content));
		}
		const before = heapSnapshot();

		onProgress(`governed read: governed (SQLite, synchronous=FULL), ${rounds} rounds`);
		const batches = durableStore.observeBatches();
		const governed: TurnFigures[] = [];
		for (let i = 0; i < rounds; i++) governed.push(await governedTurn(durable, workspace, calls, content, batches));
		const after = heapSnapshot();

		const memory: number[] = [];
		if (inMemory) {
			onProgress(`governed read: governed (in-memory store), ${rounds} rounds`);
			for (let i = 0; i < rounds; i++) memory.push((await governedTurn(inMemory, workspace, calls, content)).perCallUs);
		}
		// One more round under the sampling profiler, after the timed ones, so its cost is in no median.
		let profiledRound: TurnFigures | undefined;
		if (inMemory) {
			onProgress("governed read: one in-memory round profiled for the breakdown");
			profiledRound = await governedTurn(inMemory, workspace, calls, content, undefined, true);
		}

		const directTiming = callTiming(direct);
		const yardstickTiming = callTiming(durableYardstick);
		const governedTiming = callTiming(governed.map((g) => g.perCallUs));
		const last = governed.at(-1)!;
		const commits = governed.reduce((sum, g) => sum + (g.commits ?? 0), 0);
		const report: GovernedReadReport = {
			fileBytes: options.fileBytes,
			callsPerRound: calls,
			rounds,
			warmupRounds,
			direct: directTiming,
			durableYardstick: yardstickTiming,
			evidenceBytesPerCall: pieces.reduce((sum, piece) => sum + piece.length, 0) / calls,
			governed: governedTiming,
			ratio: governedTiming.medianUs / yardstickTiming.medianUs,
			commitsPerCall: commits / (calls * rounds),
			evidencePerTurn: { toolCalls: calls, events: last.events, auditRecords: last.auditRecords },
			memory: {
				gcForced: before.gcForced && after.gcForced,
				heapAfterDirectBytes: before.heapUsed,
				heapAfterGovernedBytes: after.heapUsed,
				heapRatio: after.heapUsed / before.heapUsed,
				rssAfterDirectBytes: before.rss,
				rssAfterGovernedBytes: after.rss,
				rssRatio: after.rss / before.rss,
				retainedHeapBytesPerCall: (after.heapUsed - before.heapUsed) / (calls * rounds),
				governedCalls: calls * rounds,
			},
		};
		if (inMemory) {
			const memoryTiming = callTiming(memory);
			report.governedInMemory = memoryTiming;
			report.inMemoryRatio = memoryTiming.medianUs / directTiming.medianUs;
			report.durabilityShare = 1 - memoryTiming.medianUs / governedTiming.medianUs;
		}
		if (profiledRound?.breakdown) report.inMemoryBreakdown = profiledRound.breakdown;
		return report;
	} finally {
		if (log !== undefined) closeSync(log);
		for (const runtime of runtimes) await runtime.close();
		rmSync(base, { recursive: true, force: true });
	}
}
