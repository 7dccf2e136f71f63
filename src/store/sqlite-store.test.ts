import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { runStoreContractTests } from "./test-support/contract-tests.js";
import { SCHEMA_VERSION } from "./sqlite-migrations.js";
import { dropVersion13 } from "./test-support/audit-v12.js";
import { SqliteStore } from "./sqlite-store.js";
import { tempStores } from "./test-support/temp-stores.js";
import { TEST_RULES } from "./test-support/test-rules.js";
import { StoreError } from "./store.js";

const { tempDir, track } = tempStores("warden-store-");

function openStore(dir: string, now?: () => Date): SqliteStore {
	const store = SqliteStore.open(dir, now ? { now, rules: TEST_RULES } : { rules: TEST_RULES });
	return track(store);
}

/** A second, raw connection to the same file: what someone tampering with the database would use. */
function raw(dir: string): Database.Database {
	return new Database(join(dir, "warden.db"));
}

/** Undoes migration 5, leaving what a version 4 database has. */
function dropVersion5(db: Database.Database): void {
	dropAfter6(db);
	db.exec("DROP TABLE operations; DROP TABLE blobs; DROP TABLE task_runs; DROP TABLE run_commands; ALTER TABLE messages DROP COLUMN label");
}

/** Undoes migration 8: process leases and owners. */
function dropVersion8(db: Database.Database): void {
	db.exec("DROP INDEX sessions_active; DROP TABLE process_leases; ALTER TABLE sessions DROP COLUMN owner; ALTER TABLE operations DROP COLUMN owner");
}

/** Undoes migration 7: the records already written stay in canonical form, which an older Warden also wrote in its own way. */
function dropVersion7(db: Database.Database): void {
	db.exec("DROP TABLE audit_format");
}

/** Undoes migration 10: memory records and their index (the triggers go with the table). */
function dropVersion10(db: Database.Database): void {
	db.exec("DROP TABLE memory_fts; DROP TABLE memory_records");
}

/** Undoes migration 9: MCP tool pins. */
function dropVersion9(db: Database.Database): void {
	db.exec("DROP TABLE mcp_pins");
}

/** Undoes migration 11: durable asks. */
function dropVersion11(db: Database.Database): void {
	db.exec("DROP TABLE asks");
}

/** Undoes migration 12: MCP refusals. */
function dropVersion12(db: Database.Database): void {
	db.exec("DROP TABLE mcp_refusals");
}

/** Undoes migration 14: the content an answer carries. */
function dropVersion14(db: Database.Database): void {
	db.exec("ALTER TABLE asks DROP COLUMN answer_content");
}

/** Undoes every migration after 6. */
function dropAfter6(db: Database.Database): void {
	dropVersion14(db);
	dropVersion13(db);
	dropVersion12(db);
	dropVersion11(db);
	dropVersion10(db);
	dropVersion9(db);
	dropVersion8(db);
	dropVersion7(db);
}

async function fill(store: SqliteStore, n: number): Promise<void> {
	for (let i = 1; i <= n; i++) {
		await store.appendAudit({
			session: "s1",
			turn: i,
			kind: "effect",
			call_id: `c${i}`,
			data: { resource: `fs:file-${i}.txt`, bytes: i * 10 },
		});
	}
}

/** Runs fn and returns the StoreError it throws. */
function storeErrorOf(fn: () => unknown): StoreError {
	try {
		fn();
	} catch (error) {
		expect(error).toBeInstanceOf(StoreError);
		return error as StoreError;
	}
	throw new Error("expected a StoreError, but nothing was thrown");
}


runStoreContractTests("sqlite", TEST_RULES, async () => {
	const dir = mkdtempSync(join(tmpdir(), "warden-contract-"));
	const store = SqliteStore.open(dir, { rules: TEST_RULES });
	return {
		store,
		async cleanup() {
			await store.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
});

describe("SqliteStore file", () => {
	it("creates a missing state dir and uses WAL with synchronous=FULL", async () => {
		const dir = join(tempDir(), "nested", "state");
		await openStore(dir).close();
		const db = raw(dir);
		expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
		const meta = db.prepare("SELECT app, version FROM schema_meta").get();
		expect(meta).toEqual({ app: "warden", version: SCHEMA_VERSION });
		db.close();
		// synchronous is per connection; check the store's own setting through a fresh store's database handle.
		const store = openStore(dir) as unknown as { db: Database.Database };
		expect(store.db.pragma("synchronous", { simple: true })).toBe(2);
	});

	it("refuses UPDATE and DELETE on audit records while the triggers are in place", async () => {
		const dir = tempDir();
		await fill(openStore(dir), 3);
		const db = raw(dir);
		expect(() => db.prepare("UPDATE audit SET line = '2' WHERE seq = 2").run()).toThrow(
			"audit records are append-only",
		);
		expect(() => db.prepare("DELETE FROM audit WHERE seq = 3").run()).toThrow("audit records are append-only");
		expect(db.prepare("SELECT COUNT(*) AS n FROM audit").get()).toEqual({
			n: 3,
		});
		db.close();
	});
});

describe("SqliteStore durability and several writers", () => {
	it("a store reopened on the same dir sees the records and continues the chain", async () => {
		const dir = tempDir();
		const first = openStore(dir);
		await first.createSession({
			id: "s1",
			workspace: "/w",
			mode: "plan",
			model: "m",
			created_at: "2025-01-01T00:00:00.000Z",
		});
		await fill(first, 3);
		const before = await first.listAudit();
		await first.close();

		const second = openStore(dir);
		expect(await second.listAudit()).toEqual(before);
		expect((await second.getSession("s1"))?.id).toBe("s1");
		const next = await second.appendAudit({
			session: "s1",
			turn: 4,
			kind: "session.ended",
			data: { status: "ok" },
		});
		expect(next.seq).toBe(4);
		expect(next.prev_hash).toBe(before[2]!.hash);
		expect(await second.verifyAudit()).toEqual({ ok: true, checked: 4 });
	});

	it("two stores open on the same file interleave appends into one valid chain", async () => {
		const dir = tempDir();
		const a = openStore(dir);
		// Two writers, two process leases: SQLite's write lock orders their appends.
		const b = SqliteStore.open(dir, { rules: TEST_RULES });
		track(b);
		const seqs: number[] = [];
		for (let i = 0; i < 10; i++) {
			const writer = i % 3 === 0 ? b : a;
			seqs.push(
				(
					await writer.appendAudit({
						session: `w${i % 3}`,
						turn: i,
						kind: "effect",
						data: { i },
					})
				).seq,
			);
		}
		expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
		expect(await a.verifyAudit()).toEqual({ ok: true, checked: 10 });
		expect(await b.verifyAudit()).toEqual({ ok: true, checked: 10 });
	});

	it("commits what eight sessions append at once in shared transactions, into one chain in each session's order", async () => {
		const store = openStore(tempDir());
		const batches = store.observeBatches();
		const sessions = Array.from({ length: 8 }, (_, s) => `s${s}`);
		await Promise.all(
			sessions.map(async (session) => {
				for (let turn = 1; turn <= 5; turn++) await store.appendAudit({ session, turn, kind: "effect", data: { turn } });
			}),
		);
		expect(batches.reduce((a, b) => a + b, 0)).toBe(40);
		// Each round of appends arrives together: eight writes per transaction, not one.
		expect(batches).toEqual([8, 8, 8, 8, 8]);
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 40 });
		for (const session of sessions) expect((await store.listAudit({ session })).map((r) => r.turn)).toEqual([1, 2, 3, 4, 5]);
	});

	it("commits what is still queued when it closes, and its callers hear it", async () => {
		const dir = tempDir();
		const store = SqliteStore.open(dir, { rules: TEST_RULES });
		const pending = store.appendAudit({ session: "s1", turn: 1, kind: "effect", data: {} });
		await store.close();
		expect((await pending).seq).toBe(1);
		const again = openStore(dir);
		expect(await again.verifyAudit()).toEqual({ ok: true, checked: 1 });
	});

	it("commits one call's deferred writes, queued across awaits, in one transaction at the barrier; the store reads them back before", async () => {
		// The deadline that commits a deferred write no barrier came for never fires here.
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		onTestFinished(() => {
			vi.useRealTimers();
		});
		const dir = tempDir();
		const store = openStore(dir);
		const batches = store.observeBatches();
		const event = { session: "s1", turn: 1, kind: "turn.started", time: "2030-01-01T00:00:00.000Z", payload: { input: "x" } } as const;
		const written: Promise<unknown>[] = [store.appendEvent(event, { deferred: true })];
		await new Promise((resolve) => setImmediate(resolve));
		written.push(store.appendAudit({ session: "s1", turn: 1, kind: "effect", data: { n: 1 } }, { deferred: true }));
		await new Promise((resolve) => setImmediate(resolve));
		written.push(store.appendMessage("s1", { role: "user", content: "hi" }, undefined, { deferred: true }));
		// Another connection sees none of it yet: nothing has committed.
		const other = raw(dir);
		try {
			expect(other.prepare("SELECT COUNT(*) AS n FROM events").get()).toEqual({ n: 0 });
			await store.barrier();
			expect(batches).toEqual([3]);
			expect(other.prepare("SELECT COUNT(*) AS n FROM events").get()).toEqual({ n: 1 });
		} finally {
			other.close();
		}
		await Promise.all(written);
		// Read your own writes: a read commits what is queued first.
		void store.appendAudit({ session: "s1", turn: 1, kind: "effect", data: { n: 2 } }, { deferred: true });
		expect((await store.listAudit()).map((r) => r.data.n)).toEqual([1, 2]);
		expect(await store.listMessages("s1")).toHaveLength(1);
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 2 });
		// A read of another table commits nothing: what waits cannot be in it.
		const commitsBefore = batches.length;
		void store.appendMessage("s1", { role: "user", content: "again" }, undefined, { deferred: true });
		expect(await store.listEvents("s1")).toHaveLength(1);
		expect(batches.length).toBe(commitsBefore);
		expect(await store.listMessages("s1")).toHaveLength(2);
		expect(batches.length).toBe(commitsBefore + 1);
	});

	it("a write that must be done at once commits after the deferred writes queued before it, in the same transaction", async () => {
		const store = openStore(tempDir());
		const batches = store.observeBatches();
		const deferred = store.appendAudit({ session: "s1", turn: 1, kind: "effect", data: {} }, { deferred: true });
		await store.createSession({ id: "s1", workspace: "/w", mode: "workspace-write", model: "m", created_at: "2030-01-01T00:00:00.000Z" });
		expect(batches).toEqual([2]);
		expect((await deferred).seq).toBe(1);
	});

	it("stamps audit records with the injected clock", async () => {
		const store = openStore(tempDir(), () => new Date("2030-06-01T12:00:00.000Z"));
		const record = await store.appendAudit({
			session: "s",
			turn: 0,
			kind: "session.started",
			data: {},
		});
		expect(record.time).toBe("2030-06-01T12:00:00.000Z");
	});

	it("refuses calls after close with a StoreError", async () => {
		const store = openStore(tempDir());
		await store.close();
		await expect(store.listSessions()).rejects.toThrow(StoreError);
		await store.close();
	});
});

describe("SqliteStore operations on disk", () => {
	const op = (id: string, createdAt: string) => ({
		id,
		session: "s1",
		turn: 1,
		call_id: `call_${id}`,
		kind: "fs.write" as const,
		resource: `fs:${id}.txt`,
		intent: { path: `${id}.txt`, sha256_before: null, sha256_after: "a".repeat(64) },
		reserved: { tool_calls: 1 },
		created_at: createdAt,
	});

	it("lists pending operations through the partial index, so recovery reads pending rows, not history", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		const db = (store as unknown as { db: Database.Database }).db;
		// A long settled history and a few pending rows, seeded in one transaction for speed.
		db.transaction(() => {
			const insert = db.prepare(
				`INSERT INTO operations (id, session, turn, call_id, kind, resource, state, intent, reserved, created_at, updated_at)
				 VALUES (?, 's1', 1, ?, 'fs.write', 'fs:x', ?, '{}', '{}', ?, ?)`,
			);
			for (let i = 0; i < 2000; i++) {
				const time = new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString();
				insert.run(`op_${i}`, `c${i}`, i % 500 === 7 ? "dispatched" : "committed", time, time);
			}
		})();
		expect((await store.listPendingOperations()).map((o) => o.id)).toEqual(["op_7", "op_507", "op_1007", "op_1507"]);
		// The statement the store actually ran, taken from its cache of prepared statements.
		const statements = (store as unknown as { statements: Map<string, unknown> }).statements;
		const pendingSql = [...statements.keys()].find((sql) => sql.includes("FROM operations WHERE state IN"));
		expect(pendingSql).toBeDefined();
		const plan = db.prepare(`EXPLAIN QUERY PLAN ${pendingSql}`).all() as { detail: string }[];
		const details = plan.map((row) => row.detail).join("\n");
		expect(details).toMatch(/USING INDEX operations_pending/);
		expect(details).not.toMatch(/SCAN operations(?! USING)/);
	});

	it("keeps one blob row per content hash", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		const bytes = Buffer.from("original content\n");
		const sha256 = createHash("sha256").update(bytes).digest("hex");
		await store.prepareOperation(op("op_1", "2025-03-01T10:00:00.000Z"), { sha256, bytes });
		await store.prepareOperation(op("op_2", "2025-03-01T10:00:01.000Z"), { sha256, bytes });
		const db = raw(dir);
		expect(db.prepare("SELECT sha256, created_at FROM blobs").all()).toEqual([{ sha256, created_at: "2025-03-01T10:00:00.000Z" }]);
		db.close();
	});

	it("refuses to read back a blob whose bytes were edited: undo must not restore them", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		const bytes = Buffer.from("original content\n");
		const sha256 = createHash("sha256").update(bytes).digest("hex");
		await store.prepareOperation(op("op_1", "2025-03-01T10:00:00.000Z"), { sha256, bytes });
		const db = raw(dir);
		db.prepare("UPDATE blobs SET bytes = ?").run(Buffer.from("tampered content\n"));
		db.close();
		await expect(store.getBlob(sha256)).rejects.toThrow(/the stored blob does not match its hash/);
	});

	it("rolls back the whole settlement when an event in it cannot be stored", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await store.prepareOperation(op("op_1", "2025-03-01T10:00:00.000Z"));
		await store.markOperationDispatched("op_1");
		const db = raw(dir);
		// A trigger stands in for a failure halfway through the transaction, after the audit insert.
		db.exec("CREATE TRIGGER fail_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk trouble'); END;");
		db.close();
		await expect(
			store.settleOperation("op_1", {
				state: "committed",
				outcome: { bytes: 3 },
				audit: { session: "s1", turn: 1, kind: "effect", call_id: "call_op_1", data: {} },
				events: [{ kind: "effect.recorded", session: "s1", turn: 1, time: "2025-03-01T10:00:01.000Z", payload: { call_id: "call_op_1", effect: "fs.write", resource: "fs:op_1.txt", audit_seq: 0 } }],
			}),
		).rejects.toThrow(/disk trouble/);
		expect((await store.listPendingOperations()).map((o) => [o.id, o.state])).toEqual([["op_1", "dispatched"]]);
		expect(await store.listAudit()).toEqual([]);
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 0 });
	});
});

describe("SqliteStore bad state dirs", () => {
	it("refuses a garbage warden.db with one line naming the dir", () => {
		const dir = tempDir();
		writeFileSync(
			join(dir, "warden.db"),
			Buffer.from("this is not a database at all, just some garbage bytes ".repeat(40)),
		);
		const error = storeErrorOf(() => SqliteStore.open(dir, { rules: TEST_RULES }));
		expect(error.message).toMatch(new RegExp(`^state dir ${dir}: warden\\.db is not a valid database \\(.+\\)$`));
		expect(error.message).not.toContain("\n");
	});

	it("refuses a dir it cannot create, naming the path", () => {
		const parent = join(tempDir(), "a-file");
		writeFileSync(parent, "x");
		const dir = join(parent, "state");
		const error = storeErrorOf(() => SqliteStore.open(dir, { rules: TEST_RULES }));
		expect(error.message).toMatch(new RegExp(`^state dir ${dir}: cannot create the directory \\(.+\\)$`));
		expect(error.message).not.toContain("\n");
	});

	it("refuses a state dir path that is a regular file", () => {
		const path = join(tempDir(), "plain-file");
		writeFileSync(path, "x");
		const error = storeErrorOf(() => SqliteStore.open(path, { rules: TEST_RULES }));
		expect(error.message).toBe(`state dir ${path}: exists but is not a directory`);
	});

	it("migrates a version 1 database (before approved rules) and keeps its audit chain", async () => {
		const dir = tempDir();
		const first = openStore(dir);
		await first.appendAudit({ session: "s1", turn: 0, kind: "session.started", data: {} });
		await first.close();
		const db = raw(dir);
		dropVersion5(db);
		db.exec("DROP TABLE approved_rules");
		// Version 4 added file labels.
		db.exec("DROP TABLE file_labels");
		// Version 3 added the lineage columns: a version 1 database has none of them.
		db.exec("DROP INDEX sessions_parent; ALTER TABLE sessions DROP COLUMN parent_session; ALTER TABLE sessions DROP COLUMN parent_call");
		db.prepare("UPDATE schema_meta SET version = 1").run();
		db.close();
		const store = openStore(dir);
		const rule = await store.addApprovedRule({
			tool: "shell",
			pattern: "npm test",
			outcome: "allow",
			workspace: "/w",
			created_at: "2025-03-01T10:00:00.000Z",
			created_by: "host",
			session: "s1",
		});
		expect(rule.id).toBe(1);
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 1 });
		expect(SCHEMA_VERSION).toBe(14);
	});

	it("migrates a version 13 database (before answer content): a pending ask stays pending, and an elicitation answer can carry content", async () => {
		const dir = tempDir();
		const first = openStore(dir);
		first.asks.open({ id: "a1", session: "s1", call_id: "c1", kind: "elicitation", body: { tool: "elicitation" }, created_at: "2025-03-01T10:00:00.000Z" });
		await first.close();
		const db = raw(dir);
		dropVersion14(db);
		db.prepare("UPDATE schema_meta SET version = 13").run();
		db.close();
		const store = openStore(dir);
		// Its asker closed, so the ask expired; the row itself came through the migration whole.
		expect(store.asks.get("a1")).toMatchObject({ kind: "elicitation", body: { tool: "elicitation" } });
		expect(store.asks.get("a1")?.answer_content).toBeUndefined();
		store.asks.open({ id: "a2", session: "s1", call_id: "c2", kind: "elicitation", body: { tool: "elicitation" }, created_at: "2025-03-01T10:00:00.000Z" });
		expect(store.asks.answer("a2", "accept", "console", "2025-03-01T10:00:01.000Z", { name: "Ada" })).toMatchObject({ ok: true, row: { answer_content: { name: "Ada" } } });
		expect(raw(dir).prepare("SELECT version FROM schema_meta").get()).toEqual({ version: 14 });
	});

	it("migrates a version 11 database (before MCP refusals): its pins stay, and a refusal can be kept", async () => {
		const dir = tempDir();
		const first = openStore(dir);
		await first.mcpPins.put({ workspace: "/w", server: "gh", tool: "a", digest: "d1", definition: "{}", flags: "[]", approved_at: "2025-03-01T10:00:00.000Z", approved_by: "cli" });
		await first.close();
		const db = raw(dir);
		dropVersion14(db);
		dropVersion13(db);
		dropVersion12(db);
		db.prepare("UPDATE schema_meta SET version = 11").run();
		db.close();
		const store = openStore(dir);
		expect((await store.mcpPins.list({ workspace: "/w" })).map((p) => p.digest)).toEqual(["d1"]);
		await store.mcpPins.refuse({ workspace: "/w", server: "gh", tool: "a", digest: "d2", refused_at: "2025-03-02T10:00:00.000Z", refused_by: "acp" });
		expect((await store.mcpPins.refusals({ workspace: "/w" })).map((r) => r.digest)).toEqual(["d2"]);
	});

	it("migrates a version 3 database (before file labels) and keeps its rows", async () => {
		const dir = tempDir();
		const first = openStore(dir);
		await first.createSession({ id: "s1", workspace: "/w", mode: "plan", model: "scripted:x", created_at: "2025-03-01T10:00:00.000Z" });
		await first.appendAudit({ session: "s1", turn: 0, kind: "session.started", data: {} });
		await first.close();
		const db = raw(dir);
		dropVersion5(db);
		db.exec("DROP TABLE file_labels");
		db.prepare("UPDATE schema_meta SET version = 3").run();
		db.close();
		const store = openStore(dir);
		expect((await store.getSession("s1"))?.workspace).toBe("/w");
		const key = { workspace: "/w", path: "a.txt", sha256: "c".repeat(64) };
		const label = { sensitivity: "secret" as const, integrity: "trusted" as const, sources: [{ kind: "file" as const, ref: ".env" }] };
		await store.putFileLabel({ ...key, label, session: "s1", created_at: "2025-03-01T10:00:01.000Z" });
		expect(await store.getFileLabel(key)).toEqual(label);
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 1 });
		const after = raw(dir);
		expect(after.prepare("SELECT version FROM schema_meta").get()).toEqual({ version: SCHEMA_VERSION });
		// The first recording's session and time are kept in the row.
		expect(after.prepare("SELECT session, created_at FROM file_labels").all()).toEqual([{ session: "s1", created_at: "2025-03-01T10:00:01.000Z" }]);
		after.close();
	});

	it("migrates a version 4 database (before operations and message labels): old messages have no label", async () => {
		const dir = tempDir();
		const first = openStore(dir);
		await first.appendMessage("s1", { role: "user", content: "before" });
		await first.appendAudit({ session: "s1", turn: 0, kind: "session.started", data: {} });
		await first.close();
		const db = raw(dir);
		dropVersion5(db);
		db.prepare("UPDATE schema_meta SET version = 4").run();
		db.close();
		const store = openStore(dir);
		const label = { sensitivity: "internal" as const, integrity: "trusted" as const, sources: [] };
		await store.appendMessage("s1", { role: "user", content: "after" }, label);
		expect(await store.listMessages("s1")).toEqual([
			{ session: "s1", seq: 1, message: { role: "user", content: "before" } },
			{ session: "s1", seq: 2, message: { role: "user", content: "after" }, label },
		]);
		await store.prepareOperation({
			id: "op_1",
			session: "s1",
			turn: 1,
			call_id: "c1",
			kind: "shell.exec",
			resource: "shell:npm test",
			intent: { command: "npm test" },
			reserved: {},
			created_at: "2025-03-01T10:00:00.000Z",
		});
		expect((await store.listPendingOperations()).map((op) => op.id)).toEqual(["op_1"]);
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 1 });
		const after = raw(dir);
		expect(after.prepare("SELECT version FROM schema_meta").get()).toEqual({ version: SCHEMA_VERSION });
		after.close();
	});

	it("migrates a version 5 database (before consumed authority): old operations consumed nothing, new ones keep it", async () => {
		const dir = tempDir();
		const first = openStore(dir);
		const intent = { session: "s1", turn: 1, call_id: "c1", kind: "fs.write" as const, resource: "fs:a", intent: { path: "a" }, reserved: {}, created_at: "2025-03-01T10:00:00.000Z" };
		await first.prepareOperation({ ...intent, id: "op_old" });
		await first.close();
		const db = raw(dir);
		dropAfter6(db);
		db.exec("ALTER TABLE operations DROP COLUMN consumed");
		db.prepare("UPDATE schema_meta SET version = 5").run();
		db.close();
		const store = openStore(dir);
		const consumed = { lease: "lease_1", grants: [{ holder: "session:s1", grant: "once" }] };
		await store.prepareOperation({ ...intent, id: "op_new", consumed });
		const ops = await store.listOperations({ session: "s1" });
		expect(ops.map((op) => [op.id, op.consumed])).toEqual([
			["op_old", undefined],
			["op_new", consumed],
		]);
		const after = raw(dir);
		expect(after.prepare("SELECT version FROM schema_meta").get()).toEqual({ version: SCHEMA_VERSION });
		after.close();
	});

	it("refuses a stored message label that was edited into something that is not a label", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await store.appendMessage("s1", { role: "user", content: "x" }, { sensitivity: "secret", integrity: "trusted", sources: [] });
		const db = raw(dir);
		db.prepare("UPDATE messages SET label = ?").run(JSON.stringify({ sensitivity: "public", integrity: "trusted" }));
		db.close();
		await expect(store.listMessages("s1")).rejects.toThrow(/message 1 of session s1: the stored label is malformed \(sources is not a list\)/);
	});

	it("refuses a stored file label that was edited into something that is not a label", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		const key = { workspace: "/w", path: "a.txt", sha256: "d".repeat(64) };
		await store.putFileLabel({ ...key, label: { sensitivity: "secret", integrity: "trusted", sources: [] }, session: "s1", created_at: "2025-03-01T10:00:00.000Z" });
		const db = raw(dir);
		db.prepare("UPDATE file_labels SET label = ?").run(JSON.stringify({ sensitivity: "public", integrity: "trusted" }));
		db.close();
		// Read as missing or public, the edit would release the content; it is an error instead.
		await expect(store.getFileLabel(key)).rejects.toThrow(/file label for a\.txt .* malformed \(sources is not a list\)/);
	});

	it("refuses a database from a newer Warden", async () => {
		const dir = tempDir();
		await openStore(dir).close();
		const db = raw(dir);
		db.prepare("UPDATE schema_meta SET version = ?").run(SCHEMA_VERSION + 1);
		db.close();
		const error = storeErrorOf(() => SqliteStore.open(dir, { rules: TEST_RULES }));
		expect(error.message).toBe(
			`state dir ${dir}: warden.db has schema version ${SCHEMA_VERSION + 1}, newer than this Warden supports (${SCHEMA_VERSION}); upgrade Warden`,
		);
	});

	it("refuses another program's SQLite file without touching it", () => {
		const dir = tempDir();
		const db = raw(dir);
		db.exec("CREATE TABLE bookmarks (url TEXT)");
		db.close();
		const error = storeErrorOf(() => SqliteStore.open(dir, { rules: TEST_RULES }));
		expect(error.message).toBe(
			`state dir ${dir}: warden.db is not a Warden database (it has tables bookmarks but no schema_meta)`,
		);
		const after = raw(dir);
		const tables = after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all();
		after.close();
		expect(tables).toEqual([{ name: "bookmarks" }]);
	});

	it("refuses a Warden database with a missing table as damaged", async () => {
		const dir = tempDir();
		await openStore(dir).close();
		const db = raw(dir);
		db.exec("DROP TABLE messages");
		db.close();
		const error = storeErrorOf(() => SqliteStore.open(dir, { rules: TEST_RULES }));
		expect(error.message).toBe(
			`state dir ${dir}: warden.db is damaged (schema version ${SCHEMA_VERSION} but table messages is missing)`,
		);
	});

	it("opens an empty warden.db file as a fresh database", async () => {
		const dir = tempDir();
		writeFileSync(join(dir, "warden.db"), "");
		const store = openStore(dir);
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 0 });
	});
});

describe("SqliteStore snapshots", () => {
	it("see one commit's state throughout: a row another connection commits mid-read is not in it, and is there after", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await store.createSession({ id: "s1", workspace: "/w", mode: "plan", model: "scripted:x", created_at: "2025-03-01T10:00:00.000Z" });
		await store.appendEvent({ kind: "turn.started", session: "s1", turn: 1, time: "2025-03-01T10:00:01.000Z", payload: { input: "a" } });
		const writer = raw(dir);
		const inside = await store.snapshot((view) => {
			const before = view.listEvents("s1").length;
			writer
				.prepare("INSERT INTO events (session, seq, turn, kind, time, json) VALUES ('s1', 2, 1, 'turn.started', 't', ?)")
				.run(JSON.stringify({ kind: "turn.started", session: "s1", turn: 1, time: "t", payload: { input: "b" } }));
			return { before, after: view.listEvents("s1").length };
		});
		writer.close();
		expect(inside).toEqual({ before: 1, after: 1 });
		expect(await store.listEvents("s1")).toHaveLength(2);
	});
});
