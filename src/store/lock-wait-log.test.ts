import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LockWaitLog } from "./lock-wait-log.js";
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

	it("records each wait once and appends them as one JSON line per flush", () => {
		const dir = mkdtempSync(join(tmpdir(), "warden-lockwait-"));
		dirs.push(dir);
		const file = join(dir, "waits.jsonl");
		const log = LockWaitLog.fromEnv({ WARDEN_LOCK_WAIT_LOG: file })!;
		const done = log.start();
		done();
		done();
		log.start()();
		log.flush();
		log.flush();
		const lines = readFileSync(file, "utf8").trim().split("\n");
		expect(lines).toHaveLength(1);
		const waits = JSON.parse(lines[0]!) as number[];
		expect(waits).toHaveLength(2);
		for (const us of waits) expect(us).toBeGreaterThanOrEqual(0);
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
		expect(JSON.parse(readFileSync(file, "utf8").trim())).toHaveLength(2);
	});
});
