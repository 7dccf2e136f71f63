import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.js";
import { StoreError } from "./store.js";
import { acquireWriterLease, LEASE_FILE, type LeaseHolder } from "./writer-lease.js";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "warden-lease-"));
	dirs.push(dir);
	return dir;
}

function leaseOn(dir: string): LeaseHolder {
	return JSON.parse(readFileSync(join(dir, LEASE_FILE), "utf8")) as LeaseHolder;
}

const HOST = "host-a";
const at = (iso: string) => () => new Date(iso);

describe("the writer lease", () => {
	it("is taken with the holder's pid, host, time and token, and release removes it", () => {
		const dir = tempDir();
		const lease = acquireWriterLease(dir, { pid: 4242, hostname: HOST, now: at("2025-05-01T09:00:00.000Z") });
		expect(leaseOn(dir)).toEqual({ pid: 4242, hostname: HOST, started_at: "2025-05-01T09:00:00.000Z", token: lease.holder.token });
		expect(lease.recovered).toBeUndefined();
		lease.release();
		expect(existsSync(join(dir, LEASE_FILE))).toBe(false);
		// No draft or aside files are left behind.
		expect(readdirSync(dir)).toEqual([]);
	});

	it("refuses a second taker while the holder lives, with one line naming the pid and since when", () => {
		const dir = tempDir();
		const first = acquireWriterLease(dir, { pid: 1234, hostname: HOST, now: at("2025-05-01T09:00:00.000Z"), isAlive: () => true });
		let error: unknown;
		try {
			acquireWriterLease(dir, { pid: 5678, hostname: HOST, isAlive: () => true });
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(StoreError);
		expect((error as Error).message).toBe(
			`state dir ${dir} is in use by another Warden process (pid 1234 since 2025-05-01T09:00:00.000Z); wait for it to finish or use another --state-dir`,
		);
		// The refused taker left the holder's lease as it was.
		expect(leaseOn(dir).token).toBe(first.holder.token);
	});

	it("treats a lease from another host as live, since its pid cannot be probed here", () => {
		const dir = tempDir();
		acquireWriterLease(dir, { pid: 1234, hostname: "host-b", now: at("2025-05-01T09:00:00.000Z") });
		expect(() => acquireWriterLease(dir, { pid: 5678, hostname: HOST, isAlive: () => false })).toThrow(
			"(pid 1234 on host-b since 2025-05-01T09:00:00.000Z)",
		);
	});

	it("takes over a lease whose process is dead and reports whose it was", () => {
		const dir = tempDir();
		const dead = acquireWriterLease(dir, { pid: 1111, hostname: HOST, now: at("2025-05-01T09:00:00.000Z") });
		const next = acquireWriterLease(dir, { pid: 2222, hostname: HOST, isAlive: (pid) => pid !== 1111 });
		expect(next.recovered).toEqual(dead.holder);
		expect(leaseOn(dir)).toEqual(next.holder);
		expect(readdirSync(dir)).toEqual([LEASE_FILE]);
	});

	it("release never removes a lease that is no longer its own", () => {
		const dir = tempDir();
		const old = acquireWriterLease(dir, { pid: 1111, hostname: HOST });
		const taker = acquireWriterLease(dir, { pid: 2222, hostname: HOST, isAlive: () => false });
		old.release();
		expect(leaseOn(dir).token).toBe(taker.holder.token);
		taker.release();
		expect(existsSync(join(dir, LEASE_FILE))).toBe(false);
	});

	it("refuses an unreadable lease instead of guessing whose it is", () => {
		const dir = tempDir();
		writeFileSync(join(dir, LEASE_FILE), "not json");
		expect(() => acquireWriterLease(dir, { isAlive: () => false })).toThrow(
			`state dir ${dir}: the writer lease ${LEASE_FILE} is unreadable; if no Warden process uses this dir, delete that file`,
		);
	});
});

describe("SqliteStore and the writer lease", () => {
	it("a writer holds the lease until close; a second writer in the meantime is refused", async () => {
		const dir = tempDir();
		const first = SqliteStore.open(dir);
		expect(leaseOn(dir).pid).toBe(process.pid);
		expect(() => SqliteStore.open(dir)).toThrow(`state dir ${dir} is in use by another Warden process (pid ${process.pid} since`);
		await first.close();
		expect(existsSync(join(dir, LEASE_FILE))).toBe(false);
		const second = SqliteStore.open(dir);
		await second.close();
	});

	it("a read-only store needs no lease, reads what the writer committed, and refuses writes", async () => {
		const dir = tempDir();
		const writer = SqliteStore.open(dir);
		await writer.appendAudit({ session: "s", turn: 0, kind: "session.started", data: {} });
		const reader = SqliteStore.open(dir, { readOnly: true });
		expect(await reader.verifyAudit()).toEqual({ ok: true, checked: 1 });
		await expect(reader.appendAudit({ session: "s", turn: 1, kind: "effect", data: {} })).rejects.toThrow(
			`the store for state dir ${dir} was opened read-only`,
		);
		await expect(reader.createSession({ id: "x", workspace: "/w", mode: "plan", model: "m", created_at: "t" })).rejects.toThrow(StoreError);
		await reader.close();
		// Closing the reader left the writer's lease alone.
		expect(leaseOn(dir).pid).toBe(process.pid);
		await writer.close();
	});

	it("recovering a dead writer's lease is recorded in the audit, naming the previous pid", async () => {
		const dir = tempDir();
		const crashed = SqliteStore.open(dir, { leaseOptions: { pid: 999_999, hostname: HOST, now: at("2025-05-01T09:00:00.000Z") } });
		await crashed.appendAudit({ session: "s", turn: 0, kind: "session.started", data: {} });
		// What a crash leaves: the database closed by the OS, the lease file still there.
		(crashed as unknown as { db: { close(): void } }).db.close();
		const next = SqliteStore.open(dir, { leaseOptions: { hostname: HOST, isAlive: (pid) => pid !== 999_999 } });
		const records = await next.listAudit();
		expect(records.map((r) => r.kind)).toEqual(["session.started", "store.lease_recovered"]);
		expect(records[1]).toMatchObject({
			session: "host",
			turn: 0,
			data: { previous_pid: 999_999, previous_hostname: HOST, previous_started_at: "2025-05-01T09:00:00.000Z", pid: process.pid },
		});
		expect(await next.verifyAudit()).toEqual({ ok: true, checked: 2 });
		await next.close();
	});
});
