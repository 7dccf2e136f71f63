/**
 * Group commit: audit appends from `sessions` sessions writing at once to one SQLite store (each
 * session awaits its own append before the next, as a governed call does), against the cheapest
 * log with the same durability, one writer appending a JSON line and fsyncing it before the next.
 * One session appending alone shows what a commit per append costs; the sessions together show what
 * committing what arrives together (one transaction, one fsync) buys. Each append's wait, from the
 * call to its batch being durable, and each transaction's wait for the write lock are reported as p99.
 */
import { appendFileSync, closeSync, existsSync, fsyncSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import type { GroupCommitReport } from "./bench-types.js";
import { BenchError } from "./bench-error.js";
import { percentile } from "./concurrency-bench.js";
import { rateTiming } from "./call-timing.js";
import { benchAuditInput } from "./evidence-mix.js";

export interface GroupCommitOptions {
	/** Sessions appending at once. */
	sessions: number;
	/** Records per round, in every variant (split evenly over the sessions). */
	recordsPerRound: number;
	rounds: number;
	warmupRounds: number;
	tempDir: string;
	onProgress: (line: string) => void;
}

type Variant = "yardstick" | "oneSession" | "sessions";

export async function benchGroupCommit(options: GroupCommitOptions): Promise<GroupCommitReport> {
	const { sessions, rounds, warmupRounds, onProgress } = options;
	if (sessions < 2) throw new BenchError(`group commit: sessions must be at least 2, got ${sessions}`);
	const perSession = Math.max(1, Math.floor(options.recordsPerRound / sessions));
	const n = perSession * sessions;
	const base = realpathSync(mkdtempSync(join(options.tempDir, "warden-bench-group-commit-")));
	const waitLog = join(base, "lock-waits.jsonl");
	const store = openSqliteStore(join(base, "state"), { lockWaitLog: waitLog });
	const fd = openSync(join(base, "state", "yardstick.jsonl"), "a");
	let closed = false;
	try {
		const names = Array.from({ length: sessions }, (_, s) => `bench-session-${s}`);
		for (const id of names) await store.createSession({ id, workspace: base, mode: "workspace-write", model: "scripted:bench", created_at: new Date().toISOString() });
		const batches = store.observeBatches();
		const appendWaitsUs: number[] = [];
		const timedAppend = async (session: string, i: number, waits?: number[]) => {
			const asked = performance.now();
			await store.appendAudit(benchAuditInput(session, i));
			waits?.push((performance.now() - asked) * 1000);
		};
		const rounds_: Record<Variant, (round: number) => Promise<number>> = {
			yardstick: async (round) => {
				const started = performance.now();
				for (let i = round * n; i < (round + 1) * n; i++) {
					appendFileSync(fd, `${JSON.stringify(benchAuditInput(names[0]!, i))}\n`);
					fsyncSync(fd);
				}
				return ((performance.now() - started) * 1000) / n;
			},
			oneSession: async (round) => {
				const started = performance.now();
				for (let i = round * n; i < (round + 1) * n; i++) await timedAppend(names[0]!, i);
				return ((performance.now() - started) * 1000) / n;
			},
			sessions: async (round) => {
				const started = performance.now();
				await Promise.all(
					names.map(async (session, s) => {
						for (let k = 0; k < perSession; k++) await timedAppend(session, round * n + s * perSession + k, round >= warmupRounds ? appendWaitsUs : undefined);
					}),
				);
				return ((performance.now() - started) * 1000) / n;
			},
		};
		const variants = Object.keys(rounds_) as Variant[];
		const samples: Record<Variant, number[]> = { yardstick: [], oneSession: [], sessions: [] };
		const batchesBefore = { count: 0 };
		onProgress(`group commit: ${warmupRounds} warm-up and ${rounds} measured rounds of ${n} audit appends: one writer's fsync'd lines, one session, ${sessions} sessions at once`);
		for (let r = 0; r < warmupRounds + rounds; r++) {
			for (const name of variants) {
				if (name === "sessions") batchesBefore.count = batches.length;
				const us = await rounds_[name](r);
				if (r >= warmupRounds) samples[name].push(us);
			}
		}
		const sessionsBatches = batches.slice(batchesBefore.count);
		const chain = await store.verifyAudit();
		const expected = (warmupRounds + rounds) * n * 2;
		if (!chain.ok || chain.checked !== expected) throw new BenchError(`group commit: the chain holds ${chain.checked} verified records (ok: ${chain.ok}), expected ${expected}`);
		await store.close();
		closed = true;
		const lockWaits = readWaits(waitLog).sort((a, b) => a - b);
		appendWaitsUs.sort((a, b) => a - b);
		const yardstick = rateTiming(samples.yardstick);
		const oneSession = rateTiming(samples.oneSession);
		const concurrent = rateTiming(samples.sessions);
		return {
			sessions,
			recordsPerRound: n,
			rounds,
			warmupRounds,
			yardstick,
			oneSession,
			concurrent,
			ratio: concurrent.perSecond / yardstick.perSecond,
			oneSessionRatio: oneSession.perSecond / yardstick.perSecond,
			meanBatch: sessionsBatches.length === 0 ? 0 : sessionsBatches.reduce((a, b) => a + b, 0) / sessionsBatches.length,
			appendWaitP99Us: percentile(appendWaitsUs, 0.99),
			lockWaits: lockWaits.length,
			lockWaitP99Us: percentile(lockWaits, 0.99),
		};
	} finally {
		closeSync(fd);
		if (!closed) await store.close();
		rmSync(base, { recursive: true, force: true });
	}
}

function readWaits(file: string): number[] {
	if (!existsSync(file)) return [];
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.flatMap((line) => (JSON.parse(line) as { waits: number[] }).waits);
}

