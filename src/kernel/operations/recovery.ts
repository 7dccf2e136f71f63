/**
 * Recovery on open, in a fixed order, over what holders that are gone left behind: many processes
 * write one state dir, each under its own process lease (src/store/process-lease.ts), and the store
 * hands this process (adoptOrphans, one write transaction) only the sessions and pending operations
 * whose holder is dead, whose pid now belongs to another process, or whose heartbeat expired. A live
 * process's pending operations are never settled here.
 *
 * 0. Take over the gone holders' work; each stale lease taken over is recorded (store.lease_recovered).
 * 1. Repair local prepared state: every pending row is read back and checked; a row that cannot be
 *    understood is left pending and reported, never guessed at.
 * 2. Abandon what was certified not started: an intent still `prepared` never reached a provider.
 * 3. Leave what was dispatched without an outcome `unknown` — never dispatched again. Only a
 *    reconciliation hook that can observe the outcome settles it otherwise: a file write whose
 *    target now holds exactly the intended bytes committed; one whose target still holds the old
 *    bytes failed (the write is an atomic rename, so there is no third state it could be in).
 * 4. Settle budgets: what an abandoned intent held is released; what an unknown one held is
 *    charged in full, since the work may have been done.
 * 5. Sessions the gone holders were running are marked `interrupted`, so they can be resumed.
 *
 * The work is bounded by the pending rows (an index holds only those), not by the history, and a
 * reopen with nothing pending writes nothing: recovering twice leaves the same evidence. Outcomes
 * are established first (reading files), then settled in one transaction per batch: a crash during
 * recovery leaves each batch whole or not at all, and what is left pending is recovered next time.
 */
import * as path from "node:path";
import { createHash } from "node:crypto";
import { errorCode, lstatIfExists, readFile } from "../../providers/fs-provider.js";
import type { OperationSettlement, Store } from "../../store/store.js";
import type { OperationKind, OperationRow, SettledState } from "./operation-types.js";
import { toOperationRows } from "../evidence/store-rows.js";

export interface RecoveredOperation {
	id: string;
	session: string;
	call_id: string;
	kind: string;
	resource: string;
	state: SettledState;
	/** How the outcome was established: `never dispatched`, `content hash`, or why it stays unknown. */
	by: string;
}

export interface RecoveryReport {
	operations: RecoveredOperation[];
	/** Rows that could not be understood: left pending, named here. */
	unreadable: string[];
	/** Sessions that were active when the process died, now `interrupted`. */
	interrupted: string[];
	/** Budget released (abandoned) and charged (unknown), summed per counter. */
	released: Record<string, number>;
	charged: Record<string, number>;
}

/** What recovery needs beyond the store: where a session's workspace is (its real path). */
export interface RecoveryOptions {
	now?: () => Date;
}

const FILE_LIMIT = 64 * 1024 * 1024;
/** Settlements per transaction: enough that 1,000 pending rows take two commits, few enough that another writer waits briefly. */
export const RECOVERY_BATCH = 500;
/** Files observed at once: as many as the thread pool runs (four by default), and at most that many reads held whole. */
const RECONCILE_CONCURRENCY = 4;

/** `fn` over `items` with at most `limit` running at once; results in the items' order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
	const out: R[] = new Array(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const i = next++;
			out[i] = await fn(items[i]!);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
	return out;
}

export async function recoverOperations(store: Store, options: RecoveryOptions = {}): Promise<RecoveryReport> {
	const now = options.now ?? (() => new Date());
	const report: RecoveryReport = { operations: [], unreadable: [], interrupted: [], released: {}, charged: {} };
	const adopted = await store.adoptOrphans();
	const pending = toOperationRows(adopted.operations);
	const workspaces = new Map<string, Promise<string | undefined>>();
	const workspaceOf = (session: string) => {
		let found = workspaces.get(session);
		if (!found) {
			found = store.getSession(session).then((s) => s?.workspace);
			workspaces.set(session, found);
		}
		return found;
	};
	// The outcomes are observed first, several files at a time (each a few syscalls on the thread
	// pool: one after another, their waits added up), then settled in the rows' order below.
	const observed = await mapConcurrently(pending, RECONCILE_CONCURRENCY, async (op) => (wellFormed(op) && op.state !== "prepared" ? reconcile(op, await workspaceOf(op.session)) : undefined));

	const settlements: { id: string; settlement: OperationSettlement }[] = [];
	const settle = (id: string, settlement: OperationSettlement) => settlements.push({ id, settlement });
	for (const [i, op] of pending.entries()) {
		if (!wellFormed(op)) {
			report.unreadable.push(op.id);
			continue;
		}
		if (op.state === "prepared") {
			settle(op.id, {
				state: "abandoned",
				outcome: { recovered: true, by: "never dispatched" },
				audit: { session: op.session, turn: op.turn, call_id: op.call_id, kind: "operation.abandoned", data: { operation: op.id, kind: op.kind, resource: op.resource, state: "abandoned", recovered: true, released: op.reserved } },
			});
			add(report.released, op.reserved);
			report.operations.push(summary(op, "abandoned", "never dispatched"));
			continue;
		}
		const outcome = observed[i]!;
		if (outcome.state === "committed") {
			// The effect happened and its record was lost with the process: it gets its record now, marked as reconciled.
			settle(op.id, {
				state: "committed",
				outcome: { recovered: true, by: outcome.by },
				audit: {
					session: op.session,
					turn: op.turn,
					call_id: op.call_id,
					kind: "effect",
					data: { effect: op.kind, resource: op.resource, ...op.intent, operation: op.id, state: "committed", reconciled_by: outcome.by },
				},
			});
		} else {
			settle(op.id, {
				state: outcome.state,
				outcome: { recovered: true, by: outcome.by },
				audit: {
					session: op.session,
					turn: op.turn,
					call_id: op.call_id,
					kind: "operation.settled",
					data: { operation: op.id, kind: op.kind, resource: op.resource, state: outcome.state, recovered: true, by: outcome.by },
				},
			});
		}
		if (outcome.state === "failed") add(report.released, op.reserved);
		else add(report.charged, op.reserved);
		report.operations.push(summary(op, outcome.state, outcome.by));
	}

	for (let i = 0; i < settlements.length; i += RECOVERY_BATCH) await store.settleOperations(settlements.slice(i, i + RECOVERY_BATCH));

	// Only sessions whose holder is gone were adopted: whatever a live process runs stays active.
	// Asked for at once, so a store that commits writes arriving together ends them in one transaction.
	const endedAt = now().toISOString();
	await Promise.all(adopted.sessions.map((session) => store.endSession(session, "interrupted", endedAt)));
	report.interrupted.push(...adopted.sessions);

	// Rows left unreadable are reported every time but recorded only with other work: a reopen that
	// settles nothing writes nothing, so recovering twice leaves the same evidence.
	if (report.operations.length > 0 || report.interrupted.length > 0) {
		await store.appendAudit({
			session: "host",
			turn: 0,
			kind: "recovery.completed",
			data: {
				operations: report.operations.map((o) => ({ id: o.id, call_id: o.call_id, kind: o.kind, state: o.state, by: o.by })),
				unknown: report.operations.filter((o) => o.state === "unknown").length,
				unreadable: report.unreadable,
				interrupted: report.interrupted,
				released: report.released,
				charged: report.charged,
			},
		});
	}
	return report;
}

function summary(op: OperationRow, state: SettledState, by: string): RecoveredOperation {
	return { id: op.id, session: op.session, call_id: op.call_id, kind: op.kind, resource: op.resource, state, by };
}

function add(into: Record<string, number>, amounts: Record<string, number>): void {
	for (const [counter, n] of Object.entries(amounts)) into[counter] = (into[counter] ?? 0) + n;
}

const KINDS: ReadonlySet<string> = new Set<OperationKind>(["fs.write", "fs.delete", "shell.exec", "net.fetch", "mcp.call"]);

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A row recovery can act on: a kind it knows, an intent and reservations it can read. */
function wellFormed(op: OperationRow): boolean {
	return (
		typeof op.id === "string" &&
		typeof op.session === "string" &&
		KINDS.has(op.kind) &&
		isRecord(op.intent) &&
		isRecord(op.reserved) &&
		Object.values(op.reserved).every((n) => typeof n === "number" && Number.isFinite(n))
	);
}

/** The reconciliation hooks: only file effects can be observed after the fact. */
async function reconcile(op: OperationRow, workspace: string | undefined): Promise<{ state: SettledState; by: string }> {
	const unknown = (why: string) => ({ state: "unknown" as const, by: why });
	if (op.kind === "shell.exec") return unknown("a command's effects cannot be observed afterwards; it is never run again");
	if (op.kind === "net.fetch") return unknown("whether the request reached the other side cannot be observed; it is never sent again");
	if (op.kind === "mcp.call") return unknown("whether the MCP server acted on the call cannot be observed; it is never sent again");
	const rel = op.intent.path;
	if (workspace === undefined || typeof rel !== "string") return unknown("the file's workspace or path is not recorded");
	const abs = path.resolve(workspace, rel);
	const inside = path.relative(workspace, abs);
	if (inside.startsWith("..") || path.isAbsolute(inside)) return unknown("the recorded path leaves the workspace");
	let current: string | null;
	try {
		const st = await lstatIfExists(abs);
		// Bounded by the size just seen, so a read holds that much, not the limit: a file that grew
		// since is refused as too large and stays unknown, never guessed at.
		current = st === null ? null : st.type === "file" ? sha256(await readFile(abs, { maxBytes: Math.min(st.size, FILE_LIMIT) })) : "not a file";
	} catch (err) {
		return unknown(`the file could not be read (${errorCode(err) ?? "error"})`);
	}
	if (op.kind === "fs.write") {
		if (current !== null && current === op.intent.sha256_after) return { state: "committed", by: "content hash: the file holds the intended bytes" };
		if (current === (op.intent.sha256_before ?? null)) return { state: "failed", by: "content hash: the file still holds its old bytes" };
		return unknown("the file holds neither the old nor the intended bytes: changed since");
	}
	// fs.delete
	if (current === null) return { state: "committed", by: "the file is gone" };
	if (current === op.intent.sha256) return { state: "failed", by: "content hash: the file is still there, unchanged" };
	return unknown("a different file stands at the path now");
}

function sha256(buf: Buffer): string {
	return createHash("sha256").update(buf).digest("hex");
}
