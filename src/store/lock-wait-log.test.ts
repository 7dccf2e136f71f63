import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LockWaitLog, readLockWaitLog } from "./lock-wait-log.js";
import { SqliteStore } from "./sqlite-store.js";
import { TEST_RULES } from "./test-support/test-rules.js";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("LockWaitLog", () => {
	it("is off unless WARDEN_LOCK_WAIT_LOG names a file", () => {
		expect(LockWaitLog.fromEnv({})).toBeUndefined();
		expect(LockWaitLog.fromEnv({ WARDEN_LOCK_WAIT_LOG: "" })).toBeUndefined();
	});

	it("records each transaction's wait and hold once, counts the busy ones once, and appends them as one JSON line per flush", () => {
		const dir = mkdtempSync(join(tmpdir(), "warden-lockwait-"));
		dirs.push(dir);
		const file = join(dir, "waits.jsonl");
		const log = LockWaitLog.fromEnv({ WARDEN_LOCK_WAIT_LOG: file })!;
		const first = log.start();
		first.busy();
		first.busy();
		first.acquired();
		first.acquired();
		first.released();
		first.released();
		const second = log.start();
		second.acquired();
		second.released();
		// Refused for good: it never held the lock, so it has no wait or hold to record.
		log.start().released();
		log.flush();
		log.flush();
		const lines = readFileSync(file, "utf8").trim().split("\n");
		expect(lines).toHaveLength(1);
		const entry = JSON.parse(lines[0]!) as { waits: number[]; holds: number[]; busy: number };
		expect(entry.waits).toHaveLength(2);
		expect(entry.holds).toHaveLength(2);
		expect(entry.busy).toBe(1);
		for (const us of [...entry.waits, ...entry.holds]) expect(us).toBeGreaterThanOrEqual(0);
	});

	it("reads every store's lines of a file together, and an absent file as none", () => {
		const dir = mkdtempSync(join(tmpdir(), "warden-lockwait-"));
		dirs.push(dir);
		const file = join(dir, "waits.jsonl");
		expect(readLockWaitLog(file)).toEqual({ waitsUs: [], holdsUs: [], busy: 0 });
		writeFileSync(file, `${JSON.stringify({ waits: [1, 2], holds: [3, 4], busy: 1 })}\n${JSON.stringify({ waits: [5], holds: [6], busy: 0 })}\n`);
		expect(readLockWaitLog(file)).toEqual({ waitsUs: [1, 2, 5], holdsUs: [3, 4, 6], busy: 1 });
	});

	it("a store opened with it logs one wait per write transaction when it closes", async () => {
		const dir = mkdtempSync(join(tmpdir(), "warden-lockwait-"));
		dirs.push(dir);
		const file = join(dir, "waits.jsonl");
		process.env.WARDEN_LOCK_WAIT_LOG = file;
		let store: SqliteStore;
		try {
			store = SqliteStore.open(join(dir, "state"), { rules: TEST_RULES });
		} finally {
			delete process.env.WARDEN_LOCK_WAIT_LOG;
		}
		await store.appendAudit({ session: "s1", turn: 0, kind: "session.started", data: {} });
		await store.close();
		// The lease row's insert and the append.
		const { waitsUs, holdsUs } = readLockWaitLog(file);
		expect(waitsUs).toHaveLength(2);
		expect(holdsUs).toHaveLength(2);
	});
});
