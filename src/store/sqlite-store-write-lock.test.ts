import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { readLockWaitLog } from "./lock-wait-log.js";
import { DB_FILE } from "./sqlite-open.js";
import { SqliteStore } from "./sqlite-store.js";
import { tempStores } from "./test-support/temp-stores.js";
import { TEST_RULES } from "./test-support/test-rules.js";
import { CoreSaturation } from "./write-lock-wait.js";

const { tempDir, track } = tempStores("warden-write-lock-");

/**
 * Another connection (a worker thread, so it runs while this thread waits) takes the write lock,
 * says so, holds it for holdMs and commits; `released` settles once it has.
 */
async function holdWriteLock(dbPath: string, holdMs: number): Promise<{ released: Promise<void> }> {
	const worker = new Worker(
		`const { parentPort, workerData } = require("node:worker_threads");
		const Database = require("better-sqlite3");
		const db = new Database(workerData.dbPath);
		db.exec("BEGIN IMMEDIATE");
		parentPort.postMessage("held");
		Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
		db.exec("COMMIT");
		db.close();`,
		{ eval: true, workerData: { dbPath, holdMs } },
	);
	const released = new Promise<void>((resolve, reject) => {
		worker.once("error", reject);
		worker.once("exit", () => resolve());
	});
	await new Promise<void>((resolve, reject) => {
		worker.once("message", () => resolve());
		worker.once("error", reject);
	});
	return { released };
}

const record = { session: "s1", turn: 0, kind: "session.started", data: {} };

/** The cores' state pinned, so each test takes the path it names whatever the machine's load. */
const FREE = new CoreSaturation(() => false);
const SATURATED = new CoreSaturation(() => true);

describe("a write while another process holds the write lock", () => {
	it("with a core free, waits it out in short sleeps and commits once the lock is free, counted as a busy transaction", async () => {
		const dir = tempDir();
		const log = join(dir, "waits.jsonl");
		const store = track(SqliteStore.open(join(dir, "state"), { rules: TEST_RULES, lockWaitLog: log, coreSaturation: FREE }));
		const { released } = await holdWriteLock(join(dir, "state", DB_FILE), 150);
		await store.appendAudit(record);
		await released;
		await store.close();
		expect(readLockWaitLog(log).busy).toBe(1);
	});

	it("with the cores saturated, SQLite's handler waits it out and the write commits", async () => {
		const dir = tempDir();
		const log = join(dir, "waits.jsonl");
		const store = track(SqliteStore.open(join(dir, "state"), { rules: TEST_RULES, lockWaitLog: log, coreSaturation: SATURATED }));
		const { released } = await holdWriteLock(join(dir, "state", DB_FILE), 150);
		await store.appendAudit(record);
		await released;
		await store.close();
		// The refusals stayed inside SQLite: the store saw none.
		expect(readLockWaitLog(log)).toMatchObject({ busy: 0 });
		expect(readLockWaitLog(log).waitsUs).toHaveLength(2);
	});

	for (const [cores, saturation] of [
		["a core free", FREE],
		["the cores saturated", SATURATED],
	] as const) {
		it(`with ${cores}, is refused in one line naming the state dir once the lock stays held past the bound, and the store writes again afterwards`, async () => {
			const dir = tempDir();
			const stateDir = join(dir, "state");
			const store = track(SqliteStore.open(stateDir, { rules: TEST_RULES, writeLockWait: { boundMs: 50, steps: [0.1, 1] }, coreSaturation: saturation }));
			const { released } = await holdWriteLock(join(stateDir, DB_FILE), 1_000);
			const refusal = await store.appendAudit(record).then(
				() => undefined,
				(error: unknown) => error as Error,
			);
			expect(refusal?.name).toBe("StoreError");
			expect(refusal?.message).toBe(`state dir ${stateDir}: the database stayed locked by another process for 0.05 s (database is locked); try again`);
			await released;
			await store.appendAudit(record);
			expect((await store.listAudit()).map((r) => r.kind)).toEqual(["session.started"]);
			expect((await store.verifyAudit()).ok).toBe(true);
		});
	}
});
