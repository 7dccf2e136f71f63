/**
 * Reopen time of a state dir a crash left with pending operations: SqliteStore.open and
 * recoverOperations, as Runtime.open runs them. Recovery reads only the pending rows (a partial
 * index holds them), so the time should follow the pending count, not the history: the same
 * pending work is timed over a small and a ten times larger history of settled operations, and the
 * ratio of the two is the figure that matters (the goal is close to 1). The yardstick is the same
 * reopen of a state dir that holds nothing but the pending rows.
 *
 * Histories are seeded straight into warden.db with one prepared INSERT in one transaction: going
 * through the store would fsync once per row, and a million fsyncs is not what is being measured.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import { recoverOperations } from "../../kernel/operations/recovery.js";
import { DB_FILE } from "../../store/sqlite-open.js";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import type { CallTiming, RecoveryBenchReport } from "./bench-types.js";
import { BenchError } from "./bench-error.js";
import { callTiming } from "./call-timing.js";

export interface RecoveryBenchOptions {
	/** Operation rows in the smaller history, the pending ones included. */
	rows: number;
	/** Operation rows in the larger history, the pending ones included. */
	largeRows: number;
	/** Operations a crash left pending, in every variant; the yardstick holds only these. */
	pending: number;
	rounds: number;
	warmupRounds: number;
	/** A fresh directory the state dirs are made in; the caller removes it. */
	dir: string;
	onProgress: (line: string) => void;
}

type Variant = "yardstick" | "rows" | "largeRows";

const SESSION = "bench-recovery";
/** The file every pending write names; it holds the intended bytes, so reconciling them reads it and commits them. */
const TARGET = "target.txt";
const TARGET_CONTENT = "the bytes the crashed writes intended\n";
const HISTORY_START = Date.parse("2025-01-01T00:00:00.000Z");

const INSERT = `INSERT INTO operations (id, session, turn, call_id, kind, resource, state, intent, reserved, outcome, audit_seq, created_at, updated_at)
	VALUES (@id, @session, @turn, @call_id, @kind, @resource, @state, @intent, @reserved, @outcome, @audit_seq, @created_at, @updated_at)`;

interface OperationDbRow {
	id: string;
	session: string;
	turn: number;
	call_id: string;
	kind: string;
	resource: string;
	state: string;
	intent: string;
	reserved: string;
	outcome: string | null;
	audit_seq: number | null;
	created_at: string;
	updated_at: string;
}

function hex64(n: number): string {
	return n.toString(16).padStart(64, "0");
}

/** One settled operation of the history, shaped and sized like the kernel's own. */
function settledRow(i: number): OperationDbRow {
	const time = new Date(HISTORY_START + i * 1000).toISOString();
	// Zero-padded, so keys arrive in index order and each insert appends to its B-trees rather than splitting them at random.
	const n = String(i).padStart(9, "0");
	const base = { id: `op_hist_${n}`, session: SESSION, turn: Math.floor(i / 10) + 1, call_id: `call-${n}`, created_at: time, updated_at: time };
	const state = i % 20 === 17 ? "failed" : i % 20 === 18 ? "abandoned" : i % 20 === 19 ? "unknown" : "committed";
	const settled = { state, audit_seq: i + 1 };
	switch (i % 10) {
		case 7:
		case 8:
			return {
				...base,
				...settled,
				kind: "shell.exec",
				resource: `shell:npm test -- --run src/module-${i % 97}`,
				intent: JSON.stringify({ command: `npm test -- --run src/module-${i % 97}` }),
				reserved: JSON.stringify({ shell_ms: 120_000 }),
				outcome: JSON.stringify({ exit_code: 0, signal: null, timed_out: false, cancelled: false }),
			};
		case 9:
			return {
				...base,
				...settled,
				kind: "fs.delete",
				resource: `fs:src/old/file-${i % 1009}.ts`,
				intent: JSON.stringify({ path: `src/old/file-${i % 1009}.ts`, type: "file", sha256: hex64(i) }),
				reserved: "{}",
				outcome: "{}",
			};
		default:
			return {
				...base,
				...settled,
				kind: "fs.write",
				resource: `fs:src/module-${i % 1009}.ts`,
				intent: JSON.stringify({ path: `src/module-${i % 1009}.ts`, sha256_before: hex64(i), sha256_after: hex64(i + 1) }),
				reserved: JSON.stringify({ bytes_written: 2048 + (i % 512) }),
				outcome: "{}",
			};
	}
}

/**
 * One operation a crash left pending. Half were still prepared (recovery abandons them), a quarter
 * were dispatched commands (left unknown), a quarter dispatched writes whose file holds the intended
 * bytes (recovery reads and hashes it, and commits them).
 */
function pendingRow(tag: string, j: number, targetSha: string): OperationDbRow {
	const time = new Date(HISTORY_START + 10 ** 10 + j).toISOString();
	const base = { id: `op_pending_${tag}_${j}`, session: SESSION, turn: 1, call_id: `call-pending-${tag}-${j}`, outcome: null, audit_seq: null, created_at: time, updated_at: time };
	if (j % 4 === 2) {
		return { ...base, kind: "shell.exec", state: "dispatched", resource: "shell:make build", intent: JSON.stringify({ command: "make build" }), reserved: JSON.stringify({ shell_ms: 120_000 }) };
	}
	return {
		...base,
		kind: "fs.write",
		state: j % 4 === 3 ? "dispatched" : "prepared",
		resource: `fs:${TARGET}`,
		intent: JSON.stringify({ path: TARGET, sha256_before: null, sha256_after: targetSha }),
		reserved: JSON.stringify({ bytes_written: TARGET_CONTENT.length }),
	};
}

/** What recovery must report for `pending` rows made by pendingRow. */
function expectedStates(pending: number): Record<string, number> {
	const counts: Record<string, number> = { abandoned: 0, unknown: 0, committed: 0 };
	for (let j = 0; j < pending; j++) counts[j % 4 === 2 ? "unknown" : j % 4 === 3 ? "committed" : "abandoned"]! += 1;
	return counts;
}

/** Inserts rows into a closed state dir's database in one transaction; returns milliseconds taken. */
function insertRows(stateDir: string, count: number, row: (i: number) => OperationDbRow): number {
	const started = performance.now();
	const db = new Database(join(stateDir, DB_FILE));
	try {
		db.pragma("journal_mode = WAL");
		// Seeding is set-up, not evidence: it need not survive a power cut, so it skips the fsyncs and keeps its pages in memory.
		db.pragma("synchronous = OFF");
		db.pragma("cache_size = -262144");
		const insert = db.prepare(INSERT);
		db.transaction(() => {
			for (let i = 0; i < count; i++) insert.run(row(i));
		}).immediate();
	} finally {
		// The last connection's close checkpoints the WAL: the reopen that follows does not replay it.
		db.close();
	}
	return performance.now() - started;
}

interface SeededDir {
	stateDir: string;
	rows: number;
	seedMs: number;
}

/** A state dir with the schema, one ended session whose workspace holds the target file, and `history` settled operations. */
async function seedStateDir(dir: string, name: string, history: number): Promise<SeededDir> {
	const stateDir = join(dir, name, "state");
	const workspace = join(dir, name);
	const store = openSqliteStore(stateDir);
	try {
		await store.createSession({ id: SESSION, workspace, mode: "workspace-write", model: "scripted:bench", created_at: new Date(HISTORY_START).toISOString() });
		// Ended, so every round's recovery does the same work: no session is left to interrupt.
		await store.endSession(SESSION, "completed", new Date(HISTORY_START).toISOString());
	} finally {
		await store.close();
	}
	writeFileSync(join(workspace, TARGET), TARGET_CONTENT);
	const seedMs = insertRows(stateDir, history, settledRow);
	return { stateDir, rows: history, seedMs };
}

/** Open and recover, timed; the close (and its checkpoint) is not part of a reopen. Returns microseconds. */
async function timedReopen(stateDir: string, expected: Record<string, number>): Promise<number> {
	const started = performance.now();
	const store = openSqliteStore(stateDir);
	let elapsedUs: number;
	try {
		const report = await recoverOperations(store);
		elapsedUs = (performance.now() - started) * 1000;
		const states: Record<string, number> = { abandoned: 0, unknown: 0, committed: 0 };
		for (const op of report.operations) states[op.state] = (states[op.state] ?? 0) + 1;
		if (report.unreadable.length > 0 || JSON.stringify(states) !== JSON.stringify(expected)) {
			throw new BenchError(`recovery in ${stateDir} settled ${JSON.stringify(states)} (${report.unreadable.length} unreadable), expected ${JSON.stringify(expected)}`);
		}
	} finally {
		await store.close();
	}
	return elapsedUs;
}

export async function benchRecovery(options: RecoveryBenchOptions): Promise<RecoveryBenchReport> {
	const { pending, rows, largeRows, rounds, warmupRounds, onProgress } = options;
	if (pending > rows) throw new BenchError(`recoveryPending (${pending}) must not exceed recoveryRows (${rows})`);
	if (rows > largeRows) throw new BenchError(`recoveryRows (${rows}) must not exceed recoveryLargeRows (${largeRows})`);
	const targetSha = createHash("sha256").update(TARGET_CONTENT).digest("hex");

	onProgress(`recovery: seeding ${rows} and ${largeRows} operation rows`);
	const dirs: Record<Variant, SeededDir> = {
		yardstick: await seedStateDir(options.dir, "yardstick", 0),
		rows: await seedStateDir(options.dir, "rows", rows - pending),
		largeRows: await seedStateDir(options.dir, "large", largeRows - pending),
	};
	const names = Object.keys(dirs) as Variant[];
	const expected = expectedStates(pending);
	const samples: Record<Variant, number[]> = { yardstick: [], rows: [], largeRows: [] };

	onProgress(`recovery: ${warmupRounds} warm-up and ${rounds} measured reopens per history, ${pending} pending operations each`);
	for (let r = 0; r < warmupRounds + rounds; r++) {
		for (const name of names) {
			// Each round's crash leaves fresh pending rows; the ones recovered before are history now.
			insertRows(dirs[name].stateDir, pending, (j) => pendingRow(`r${r}`, j, targetSha));
			const us = await timedReopen(dirs[name].stateDir, expected);
			if (r >= warmupRounds) samples[name].push(us);
		}
	}

	const yardstick: CallTiming = callTiming(samples.yardstick);
	const reopen = callTiming(samples.rows);
	const reopenLarge = callTiming(samples.largeRows);
	return {
		pending,
		rows,
		largeRows,
		rounds,
		warmupRounds,
		seedMs: { rows: dirs.rows.seedMs, largeRows: dirs.largeRows.seedMs },
		yardstick,
		reopen,
		reopenLarge,
		ratio: reopenLarge.medianUs / reopen.medianUs,
		reopenRatio: reopen.medianUs / yardstick.medianUs,
		reopenLargeRatio: reopenLarge.medianUs / yardstick.medianUs,
	};
}
