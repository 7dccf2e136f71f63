/**
 * Durable appends per second: the SQLite store's appendEvent and appendAudit (WAL,
 * synchronous=FULL, one commit per append), against the cheapest log with the same durability, a
 * JSON line appended to a file in the same directory and fsync'd before the next. The ratio is what
 * SQLite and the hash chain cost over that floor; the in-memory row shows how little of it is CPU.
 */
import { appendFileSync, closeSync, fsyncSync, openSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { Store } from "../../store/store.js";
import type { AppendReport } from "./bench-types.js";
import { BenchError } from "./bench-error.js";
import { rateTiming } from "./call-timing.js";
import { benchAuditInput, benchEvent } from "./evidence-mix.js";
import { MemoryStore } from "./memory-store.js";

export interface AppendBenchOptions {
	/** The durable store under test; its audit chain is left for the verification benchmark. */
	store: Store;
	/** A file on the same filesystem as the store's state dir, for the yardstick's log. */
	logFile: string;
	session: string;
	appendsPerRound: number;
	rounds: number;
	warmupRounds: number;
	onProgress: (line: string) => void;
}

type Variant = "yardstick" | "event" | "audit" | "auditInMemory";

/** Appends `count` items starting at index `from`; returns microseconds per append. */
type Round = (from: number, count: number) => Promise<number>;

function meanJsonBytes(make: (i: number) => unknown, count: number): number {
	let total = 0;
	for (let i = 0; i < count; i++) total += Buffer.byteLength(JSON.stringify(make(i)));
	return total / count;
}

export async function benchAppends(options: AppendBenchOptions): Promise<AppendReport> {
	const { store, session, appendsPerRound: n, rounds, warmupRounds, onProgress } = options;
	const memory = new MemoryStore();
	const fd = openSync(options.logFile, "a");
	try {
		const timed = async (body: (i: number) => unknown, from: number, count: number): Promise<number> => {
			const started = performance.now();
			for (let i = from; i < from + count; i++) await body(i);
			return ((performance.now() - started) * 1000) / count;
		};
		const variants: Record<Variant, Round> = {
			yardstick: (from, count) =>
				timed(
					(i) => {
						appendFileSync(fd, `${JSON.stringify(benchAuditInput(session, i))}\n`);
						fsyncSync(fd);
					},
					from,
					count,
				),
			event: (from, count) => timed((i) => store.appendEvent(benchEvent(session, i)), from, count),
			audit: (from, count) => timed((i) => store.appendAudit(benchAuditInput(session, i)), from, count),
			auditInMemory: (from, count) => timed((i) => memory.appendAudit(benchAuditInput(session, i)), from, count),
		};
		const names = Object.keys(variants) as Variant[];
		const samples: Record<Variant, number[]> = { yardstick: [], event: [], audit: [], auditInMemory: [] };

		onProgress(`appends: ${warmupRounds} warm-up and ${rounds} measured rounds of ${n} appends per variant, interleaved`);
		for (let r = 0; r < warmupRounds + rounds; r++) {
			// Every variant gets the same indices, so each writes the same items in the same order.
			for (const name of names) {
				const perAppendUs = await variants[name](r * n, n);
				if (r >= warmupRounds) samples[name].push(perAppendUs);
			}
		}

		const total = (warmupRounds + rounds) * n;
		const held = {
			"durable events": (await store.listEvents(session)).length,
			"durable audit records": (await store.listAudit({ session })).length,
			"in-memory audit records": (await memory.listAudit()).length,
		};
		for (const [what, count] of Object.entries(held)) {
			if (count !== total) throw new BenchError(`the append benchmark left ${count} ${what}, expected ${total}`);
		}
		const yardstick = rateTiming(samples.yardstick);
		const event = rateTiming(samples.event);
		const audit = rateTiming(samples.audit);
		const auditInMemory = rateTiming(samples.auditInMemory);
		return {
			appendsPerRound: n,
			rounds,
			warmupRounds,
			eventBytes: meanJsonBytes((i) => benchEvent(session, i), total),
			auditBytes: meanJsonBytes((i) => benchAuditInput(session, i), total),
			yardstick,
			event,
			audit,
			auditInMemory,
			eventRatio: event.medianUs / yardstick.medianUs,
			auditRatio: audit.medianUs / yardstick.medianUs,
			auditInMemoryRatio: auditInMemory.medianUs / yardstick.medianUs,
		};
	} finally {
		closeSync(fd);
		await memory.close();
	}
}
