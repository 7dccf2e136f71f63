/**
 * The operator console: (1) feed latency, from the moment another process starts appending an
 * event (its durable commit included) to the event's arrival at a Server-Sent Events client of
 * the console, with that process's own append time as the yardstick (goal p95 ≤ 100 ms); (2) the
 * audit browser's page time over HTTP at a large chain against a small one (goal ≤ 1.5×: keyset
 * pages cost the same wherever they land). The chains are made by direct inserts in one
 * transaction, since their hashes are never checked here, only paged.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { auditLine } from "../../store/sqlite-audit-table.js";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import { DB_FILE } from "../../store/sqlite-open.js";
import { openAskQueue } from "../../runtime/asks/ask-queue.js";
import { ConsoleClient } from "../console/console-client.js";
import { startConsole } from "../console/console-server.js";
import type { FeedItem } from "../console/console-types.js";
import { BenchError } from "./bench-error.js";
import type { CallTiming, EchoTiming } from "./bench-types.js";
import { callTiming } from "./call-timing.js";
import { FEED_GOAL_MS, PAGE_GOAL_RATIO, PAGE_SIZE } from "./console-bench-table.js";
import { thousands } from "./table-cells.js";

export interface ConsoleBenchOptions {
	/** Events the other process appends, one at a time. */
	events: number;
	/** The pause between its appends, so each is timed alone. Default 10 ms. */
	intervalMs?: number;
	/** Audit records in the small chain and in the large one. */
	smallRecords: number;
	largeRecords: number;
	/** Measured rounds of page reads per chain (each round reads four pages). */
	pageRounds: number;
	warmupRounds: number;
	tempDir: string;
	onProgress?: (line: string) => void;
}

export interface ConsoleBenchReport {
	events: number;
	/** Start of the append in the other process to arrival at the SSE client, in ms. */
	feed: EchoTiming;
	/** The other process's appendEvent alone, durable commit included (the yardstick), in ms. */
	append: EchoTiming;
	/** feed.p95Ms / append.p95Ms. */
	feedRatio: number;
	/** feed.p95Ms ≤ 100. */
	feedGoalMet: boolean;
	smallRecords: number;
	largeRecords: number;
	pageRounds: number;
	/** One audit page (50 records) over HTTP, the mean of the newest, a middle, the oldest and one session's page, per round. */
	smallPage: CallTiming;
	largePage: CallTiming;
	/** largePage / smallPage medians. */
	pageRatio: number;
	/** pageRatio ≤ 1.5. */
	pageGoalMet: boolean;
}

const SESSIONS = 100;

/** The store module the appending process loads: the built one, whether this file runs from src or dist. */
function builtStoreModule(): string {
	const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
	return join(root, "dist", "kernel", "evidence", "store-rows.js");
}

const now = () => performance.timeOrigin + performance.now();

export function latency(samplesMs: readonly number[]): EchoTiming {
	const sorted = [...samplesMs].sort((a, b) => a - b);
	const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
	return { samples: sorted.length, p50Ms: at(0.5), p95Ms: at(0.95), maxMs: sorted[sorted.length - 1] ?? 0 };
}

export async function benchConsole(options: ConsoleBenchOptions): Promise<ConsoleBenchReport> {
	const progress = options.onProgress ?? (() => {});
	progress(`console: feed latency over ${options.events} events appended by another process`);
	const { feed, append } = await feedLatency(options);
	progress(`console: audit pages at ${thousands(options.smallRecords)} and ${thousands(options.largeRecords)} records`);
	const [smallPage, largePage] = await pageTimes(
		[
			{ stateDir: join(options.tempDir, "console-small"), records: options.smallRecords },
			{ stateDir: join(options.tempDir, "console-large"), records: options.largeRecords },
		],
		options,
	);
	const pageRatio = largePage.medianUs / smallPage.medianUs;
	return {
		events: options.events,
		feed,
		append,
		feedRatio: feed.p95Ms / Math.max(append.p95Ms, 0.001),
		feedGoalMet: feed.p95Ms <= FEED_GOAL_MS,
		smallRecords: options.smallRecords,
		largeRecords: options.largeRecords,
		pageRounds: options.pageRounds,
		smallPage,
		largePage,
		pageRatio,
		pageGoalMet: pageRatio <= PAGE_GOAL_RATIO,
	};
}

/** The appending process: waits for "go" on stdin, appends one event at a time, prints its append times. */
const WRITER = `
const [storeModule, stateDir, count, interval] = process.argv.slice(2);
const { openSqliteStore } = await import(storeModule);
const { performance } = await import("node:perf_hooks");
const store = openSqliteStore(stateDir);
const now = () => performance.timeOrigin + performance.now();
process.stdout.write("ready\\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
const took = [];
for (let i = 0; i < Number(count); i++) {
	const sent = now();
	await store.appendEvent({ kind: "tool.proposed", session: "bench", turn: 1, time: new Date().toISOString(), payload: { call_id: "call_" + i, tool: "read_file", arguments: {}, sent_ms: sent } });
	took.push(now() - sent);
	await new Promise((resolve) => setTimeout(resolve, Number(interval)));
}
await store.close();
process.stdout.write(JSON.stringify(took) + "\\n");
`;

async function feedLatency(options: ConsoleBenchOptions): Promise<{ feed: EchoTiming; append: EchoTiming }> {
	const stateDir = join(options.tempDir, "console-feed");
	await openSqliteStore(stateDir).close();
	const asks = openAskQueue(stateDir);
	const running = await startConsole({ stateDir, asks });
	const script = join(options.tempDir, "console-writer.mjs");
	writeFileSync(script, WRITER);
	try {
		const client = await ConsoleClient.login(running.url);
		const arrivals: number[] = [];
		let all: () => void = () => {};
		const arrived = new Promise<void>((resolve) => {
			all = resolve;
		});
		const stream = client.stream("/api/feed", (message) => {
			if (message.event !== "feed") return;
			const at = now();
			const sent = ((JSON.parse(message.data) as FeedItem).event as { payload: { sent_ms: number } }).payload.sent_ms;
			arrivals.push(at - sent);
			if (arrivals.length === options.events) all();
		});
		await stream.opened;
		const child = spawn(process.execPath, [script, pathToFileURL(builtStoreModule()).href, stateDir, String(options.events), String(options.intervalMs ?? 10)], {
			stdio: ["pipe", "pipe", "pipe"],
		});
		let out = "";
		let err = "";
		child.stderr.on("data", (d: Buffer) => {
			err += d.toString();
		});
		const exited = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
		await new Promise<void>((resolve, reject) => {
			child.stdout.on("data", (d: Buffer) => {
				out += d.toString();
				if (out.startsWith("ready\n")) resolve();
			});
			void exited.then((code) => reject(new BenchError(`the appending process exited ${code} before it was ready: ${err.trim()}`)));
		});
		child.stdin.end("go\n");
		const code = await exited;
		if (code !== 0) throw new BenchError(`the appending process exited ${code}: ${err.trim()}`);
		await arrived;
		stream.close();
		const took = JSON.parse(out.slice("ready\n".length).trim()) as number[];
		return { feed: latency(arrivals), append: latency(took) };
	} finally {
		await running.close();
		await asks.close();
	}
}

interface Chain {
	stateDir: string;
	records: number;
}

/** A chain of `records` rows by direct inserts, in one transaction. */
async function seedChain(stateDir: string, records: number): Promise<void> {
	mkdirSync(stateDir, { recursive: true });
	await openSqliteStore(stateDir).close();
	const db = new Database(join(stateDir, DB_FILE));
	const insert = db.prepare("INSERT INTO audit (seq, line) VALUES (?, ?)");
	const time = new Date().toISOString();
	db.transaction(() => {
		for (let seq = 1; seq <= records; seq++) {
			const hash = seq.toString(16).padStart(64, "0");
			const body = `{"call_id":"call_1_1_${seq}","data":{"path":"src/file_${seq}.ts","tool":"read_file"},"kind":"tool.proposed","seq":${seq},"session":"session-${seq % SESSIONS}","time":"${time}","turn":1}`;
			insert.run(seq, auditLine(seq, hash, hash, body));
		}
	})();
	db.close();
}

/**
 * The console's page time over HTTP at four places in each chain (newest, middle, oldest, one
 * session's middle). The chains are read in turn within each round, so drift on a shared machine
 * (and the JIT warming up) falls on both alike.
 */
async function pageTimes(chains: readonly [Chain, Chain], options: ConsoleBenchOptions): Promise<[CallTiming, CallTiming]> {
	for (const chain of chains) await seedChain(chain.stateDir, chain.records);
	const consoles = [];
	// Pages only read: their consoles list asks without taking a lease.
	const queues = chains.map((chain) => openAskQueue(chain.stateDir, { readOnly: true }));
	try {
		for (const [i, chain] of chains.entries()) consoles.push(await startConsole({ stateDir: chain.stateDir, asks: queues[i]! }));
		const readers = await Promise.all(
			consoles.map(async (running, i) => {
				const records = chains[i]!.records;
				const client = await ConsoleClient.login(running.url);
				const paths = [
					`/api/audit?limit=${PAGE_SIZE}`,
					`/api/audit?limit=${PAGE_SIZE}&before=${Math.floor(records / 2)}`,
					`/api/audit?limit=${PAGE_SIZE}&before=${Math.min(records, PAGE_SIZE + 1)}`,
					`/api/audit?limit=${PAGE_SIZE}&session=session-7&before=${Math.floor(records / 2)}`,
				];
				return { client, paths, samples: [] as number[] };
			}),
		);
		for (let round = 0; round < options.warmupRounds + options.pageRounds; round++) {
			for (const reader of readers) {
				const started = performance.now();
				for (const path of reader.paths) await reader.client.get(path);
				if (round >= options.warmupRounds) reader.samples.push(((performance.now() - started) * 1000) / reader.paths.length);
			}
		}
		return [callTiming(readers[0]!.samples), callTiming(readers[1]!.samples)];
	} finally {
		for (const running of consoles) await running.close();
		for (const queue of queues) await queue.close();
	}
}
