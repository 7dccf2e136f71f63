
import { describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.js";
import type { OperationIntentRow } from "./store.js";
import { tempStores } from "./test-support/temp-stores.js";
import { TEST_RULES } from "./test-support/test-rules.js";

const { tempDir, track } = tempStores("warden-leases-");


/** A writer as process `pid`; `alive` says which pids the probe finds. */
function open(dir: string, pid: number, alive: Set<number>, over: { pidStart?: string | null; startTime?: (pid: number) => string | undefined } = {}): SqliteStore {
	const store = SqliteStore.open(dir, {
		rules: TEST_RULES,
		leaseOptions: { pid, pidStart: over.pidStart === undefined ? `start-${pid}` : over.pidStart, hostname: "h", isAlive: (p) => alive.has(p), startTime: over.startTime ?? ((p) => `start-${p}`) },
	});
	return track(store);
}

const intent = (id: string, session: string): OperationIntentRow => ({
	id,
	session,
	turn: 1,
	call_id: `call-${id}`,
	kind: "shell.exec",
	resource: "shell:true",
	intent: { command: "true" },
	reserved: {},
	created_at: "2025-05-01T09:00:00.000Z",
});

async function seedSession(store: SqliteStore, id: string): Promise<void> {
	await store.createSession({ id, workspace: "/w", mode: "full-access", model: "scripted:x", created_at: "2025-05-01T09:00:00.000Z" });
	await store.prepareOperation(intent(`op-${id}`, id));
}

describe("process leases over one state dir", () => {
	it("adopts only a gone holder's sessions and operations, records the stale lease once, and never a live one's", async () => {
		const dir = tempDir();
		const alive = new Set([1, 2, 3]);
		const live = open(dir, 1, alive);
		const doomed = open(dir, 2, alive);
		await seedSession(live, "s-live");
		await seedSession(doomed, "s-dead");
		// Process 2 dies without closing: its lease row stays.
		alive.delete(2);
		const recoverer = open(dir, 3, alive);
		const adopted = await recoverer.adoptOrphans();
		expect(adopted.sessions).toEqual(["s-dead"]);
		expect(adopted.operations.map((o) => o.id)).toEqual(["op-s-dead"]);
		expect(adopted.holders.map((h) => [h.pid, h.why])).toEqual([[2, "the process is gone"]]);
		const records = (await recoverer.listAudit()).filter((r) => r.kind === "store.lease_recovered");
		expect(records).toHaveLength(1);
		expect(records[0]?.data).toMatchObject({ previous_pid: 2, why: "the process is gone", pid: 3 });
		// A second recoverer finds nothing left: adoption is atomic and happens once.
		const again = await open(dir, 4, new Set([1, 3, 4])).adoptOrphans();
		expect(again).toEqual({ holders: [], sessions: [], operations: [] });
		expect(await recoverer.verifyAudit()).toMatchObject({ ok: true });
	});

	it("judges a pid that was reused by its start time: the lease is a gone holder's", async () => {
		const dir = tempDir();
		const alive = new Set([7, 8]);
		const first = open(dir, 7, alive);
		await seedSession(first, "s1");
		// Pid 7 now belongs to a later process with another start time.
		const recoverer = open(dir, 8, alive, { startTime: (p) => (p === 7 ? "start-later" : `start-${p}`) });
		const adopted = await recoverer.adoptOrphans();
		expect(adopted.sessions).toEqual(["s1"]);
		expect(adopted.holders.map((h) => h.why)).toEqual(["its pid now belongs to another process"]);
	});

	it("treats what a cleanly closed process left (no lease row) as orphaned, without a lease record", async () => {
		const dir = tempDir();
		const alive = new Set([1, 2]);
		const first = SqliteStore.open(dir, { rules: TEST_RULES, leaseOptions: { pid: 1, hostname: "h", isAlive: (p) => alive.has(p) } });
		await seedSession(first, "s1");
		await first.close();
		const recoverer = open(dir, 2, alive);
		const adopted = await recoverer.adoptOrphans();
		expect(adopted.sessions).toEqual(["s1"]);
		expect(adopted.holders).toEqual([]);
	});

	it("lets one process resume a stopped session and refuses a second with one line naming the holder", async () => {
		const dir = tempDir();
		const alive = new Set([1, 2]);
		const a = open(dir, 1, alive);
		const b = open(dir, 2, alive);
		await a.createSession({ id: "s1", workspace: "/w", mode: "plan", model: "scripted:x", created_at: "2025-05-01T09:00:00.000Z" });
		await a.endSession("s1", "completed", "2025-05-01T09:01:00.000Z");
		await b.claimSession("s1");
		expect((await a.getSession("s1"))?.status).toBe("active");
		const holder = b.holder!;
		await expect(a.claimSession("s1")).rejects.toThrow(`session s1 is in use by another Warden process (pid 2 since ${holder.started_at}); wait for it to finish`);
		// Once b's run of it ends, a may resume it.
		await b.endSession("s1", "completed", "2025-05-01T09:02:00.000Z");
		await a.claimSession("s1");
		await expect(a.claimSession("nope")).rejects.toThrow(/^unknown session nope$/);
	});

	it("names the live process running a session, and none once it stopped or its holder is gone", async () => {
		const dir = tempDir();
		const alive = new Set([1, 2]);
		const a = open(dir, 1, alive);
		const b = open(dir, 2, alive);
		await a.createSession({ id: "s1", workspace: "/w", mode: "plan", model: "scripted:x", created_at: "2025-05-01T09:00:00.000Z" });
		expect((await b.sessionHolder("s1"))?.pid).toBe(1);
		alive.delete(1);
		expect(await b.sessionHolder("s1")).toBeUndefined();
		alive.add(1);
		await a.endSession("s1", "completed", "2025-05-01T09:01:00.000Z");
		expect(await b.sessionHolder("s1")).toBeUndefined();
		expect(await b.sessionHolder("nope")).toBeUndefined();
	});

	it("refuses to resume a session still active whose holder is gone until recovery settles it", async () => {
		const dir = tempDir();
		const alive = new Set([1, 2]);
		const a = open(dir, 1, alive);
		await a.createSession({ id: "s1", workspace: "/w", mode: "plan", model: "scripted:x", created_at: "2025-05-01T09:00:00.000Z" });
		alive.delete(1);
		const b = open(dir, 2, alive);
		await expect(b.claimSession("s1")).rejects.toThrow(/session s1 is still active but the process running it is gone/);
	});

	it("removes its own lease row on close, and a reader takes none", async () => {
		const dir = tempDir();
		const writer = SqliteStore.open(dir, { rules: TEST_RULES });
		expect(writer.holder?.pid).toBe(process.pid);
		const reader = SqliteStore.open(dir, { readOnly: true, rules: TEST_RULES });
		expect(reader.holder).toBeUndefined();
		await reader.close();
		await writer.close();
		const other = open(dir, 5, new Set([5]));
		expect((await other.adoptOrphans()).holders).toEqual([]);
	});
});
