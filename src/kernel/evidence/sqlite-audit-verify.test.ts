/** Audit verification over the SQLite store's stored canonical bytes: what each tampered column or row is named as. */
import { describe, expect, it } from "vitest";
import { tamperFixture } from "../test-support/audit-tamper.js";
import { openSqliteStore } from "./store-rows.js";
import { GENESIS_HASH, auditHash, canonicalJson } from "./audit-chain.js";
import type { AuditRecord } from "./audit-types.js";
import { STORE_RULES } from "./store-rules.js";

const { tempDir, openStore, raw, dropTriggers, fill } = tamperFixture("warden-audit-verify-");

const EDITED = (seq: number, checked: number) => ({
	ok: false,
	checked,
	firstBad: { seq, reason: `record ${seq}: hash does not match its contents (edited?)` },
});

/**
 * A chain as Warden before schema version 7 wrote it: data as JSON.stringify gave it (keys in
 * the order they were built, not sorted), the hash over the canonical form, schema version 6.
 */
async function writeLegacyChain(dir: string, n: number): Promise<AuditRecord[]> {
	await openSqliteStore(dir).close();
	const db = raw(dir);
	// Back to version 6: without migration 12's refusals, 11's asks, 10's memory, 9's pins, 8's leases and owners and 7's audit_format.
	db.exec("DROP TABLE mcp_refusals");
	db.exec("DROP TABLE asks");
	db.exec("DROP TABLE memory_fts; DROP TABLE memory_records");
	db.exec("DROP TABLE mcp_pins");
	db.exec("DROP INDEX sessions_active; DROP TABLE process_leases; ALTER TABLE sessions DROP COLUMN owner; ALTER TABLE operations DROP COLUMN owner");
	db.exec("DROP TABLE audit_format");
	db.prepare("UPDATE schema_meta SET version = 6").run();
	const insert = db.prepare(
		"INSERT INTO audit (seq, time, session, turn, kind, call_id, data, prev_hash, hash) VALUES (@seq, @time, @session, @turn, @kind, @call_id, @data, @prev_hash, @hash)",
	);
	const records = chainOf(n, (i) => ({ zeta: i, alpha: { y: 2, x: 1 } }));
	for (const record of records) insert.run({ ...record, data: JSON.stringify(record.data) });
	const prev = records.at(-1)?.hash ?? GENESIS_HASH;
	db.prepare("INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash").run(n, prev);
	db.close();
	return records;
}

function chainOf(n: number, data: (seq: number) => Record<string, unknown>): AuditRecord[] {
	const records: AuditRecord[] = [];
	let prev = GENESIS_HASH;
	for (let seq = 1; seq <= n; seq++) {
		const fields = { seq, time: `2025-01-01T00:00:00.${String(seq % 1000).padStart(3, "0")}Z`, session: "s1", turn: seq, kind: "effect" as const, call_id: `c${seq}`, data: data(seq) };
		const record = { ...fields, prev_hash: prev, hash: auditHash(prev, fields) };
		records.push(record);
		prev = record.hash;
	}
	return records;
}

describe("SqliteStore audit verification from the stored bytes", () => {
	it("stores each record's data as the canonical text its hash covers", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		const record = await store.appendAudit({ session: "s1", turn: 1, kind: "effect", data: { zeta: 1, alpha: { y: "\n\"", x: [3, { b: 1, a: 2 }] } } });
		const db = raw(dir);
		const row = db.prepare("SELECT data FROM audit WHERE seq = 1").get() as { data: string };
		db.close();
		expect(row.data).toBe(canonicalJson(record.data));
		expect(row.data).toBe('{"alpha":{"x":[3,{"a":2,"b":1}],"y":"\\n\\""},"zeta":1}');
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 1 });
	});

	it("names a record whose data was rewritten with the same meaning in other bytes", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 5);
		const db = raw(dir);
		dropTriggers(db);
		// Decodes to exactly what was hashed, but is no longer the bytes that were: an edit all the same.
		db.prepare(`UPDATE audit SET data = '{"resource":"fs:file-3.txt","bytes":30}' WHERE seq = 3`).run();
		db.close();
		expect(await store.verifyAudit()).toEqual(EDITED(3, 2));
	});

	it.each([
		["kind", "UPDATE audit SET kind = 'tool.outcome' WHERE seq = 4"],
		["session", "UPDATE audit SET session = 's2' WHERE seq = 4"],
		["time", "UPDATE audit SET time = '2020-01-01T00:00:00.000Z' WHERE seq = 4"],
		["turn", "UPDATE audit SET turn = 99 WHERE seq = 4"],
		["call_id", "UPDATE audit SET call_id = 'c99' WHERE seq = 4"],
		["call_id (removed)", "UPDATE audit SET call_id = NULL WHERE seq = 4"],
		["turn (as text)", "UPDATE audit SET turn = 'four' WHERE seq = 4"],
		["data (as a blob of the same bytes)", "UPDATE audit SET data = CAST(data AS BLOB) WHERE seq = 4"],
	])("names a record whose %s column was edited", async (_column, sql) => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 6);
		const db = raw(dir);
		dropTriggers(db);
		db.pragma("ignore_check_constraints = ON");
		db.prepare(sql).run();
		db.close();
		expect(await store.verifyAudit()).toEqual(EDITED(4, 3));
	});

	it("walks a chain longer than one page of reads", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		// Written in one transaction through a second connection, as the store would (canonical data), to keep the test quick.
		const records = chainOf(4100, (seq) => ({ resource: `fs:file-${seq}.txt` }));
		const db = raw(dir);
		const insert = db.prepare(
			"INSERT INTO audit (seq, time, session, turn, kind, call_id, data, prev_hash, hash) VALUES (@seq, @time, @session, @turn, @kind, @call_id, @data, @prev_hash, @hash)",
		);
		db.transaction(() => {
			for (const record of records) insert.run({ ...record, data: canonicalJson(record.data) });
			db.prepare("INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?)").run(4100, records.at(-1)!.hash);
		})();
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 4100 });
		dropTriggers(db);
		db.prepare("UPDATE audit SET turn = 0 WHERE seq = 4099").run();
		db.close();
		expect(await store.verifyAudit()).toEqual(EDITED(4099, 4098));
	});
});

describe("SqliteStore audit verification of a chain written before data was canonical", () => {
	it("migrates a version 6 chain unchanged, verifies it, and verifies what is appended after", async () => {
		const dir = tempDir();
		const legacy = await writeLegacyChain(dir, 3);
		const store = openStore(dir);
		expect(await store.listAudit()).toEqual(legacy);
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 3 });
		await store.appendAudit({ session: "s1", turn: 4, kind: "effect", data: { zeta: 4, alpha: 1 } });
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 4 });
		const db = raw(dir);
		expect(db.prepare("SELECT canonical_from FROM audit_format").get()).toEqual({ canonical_from: 4 });
		expect((db.prepare("SELECT data FROM audit ORDER BY seq").pluck().all() as string[]).map((data) => data.indexOf("zeta") < data.indexOf("alpha"))).toEqual([
			true,
			true,
			true,
			false,
		]);
		db.close();
	});

	it("still names an edited record in the old part of the chain", async () => {
		const dir = tempDir();
		await writeLegacyChain(dir, 3);
		const store = openStore(dir);
		await store.appendAudit({ session: "s1", turn: 4, kind: "effect", data: {} });
		const db = raw(dir);
		dropTriggers(db);
		db.prepare(`UPDATE audit SET data = '{"zeta":2,"alpha":{"y":2,"x":"forged"}}' WHERE seq = 2`).run();
		db.close();
		expect(await store.verifyAudit()).toEqual(EDITED(2, 1));
	});

	it("holds records after the old part to their bytes: a reordered key in a new record is named", async () => {
		const dir = tempDir();
		await writeLegacyChain(dir, 2);
		const store = openStore(dir);
		await store.appendAudit({ session: "s1", turn: 3, kind: "effect", data: { b: 1, a: 2 } });
		const db = raw(dir);
		dropTriggers(db);
		db.prepare(`UPDATE audit SET data = '{"b":1,"a":2}' WHERE seq = 3`).run();
		db.close();
		expect(await store.verifyAudit()).toEqual(EDITED(3, 2));
	});

	it("without audit_format's row, holds every record to its bytes (the strictest reading)", async () => {
		const dir = tempDir();
		await writeLegacyChain(dir, 2);
		const store = openStore(dir);
		const db = raw(dir);
		db.prepare("DELETE FROM audit_format").run();
		db.close();
		expect(await store.verifyAudit()).toEqual(EDITED(1, 0));
	});
});

describe("SqliteStore audit verification of a database a reader did not migrate", () => {
	it("verifies a version 6 chain by decoding when audit_format is not there yet", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 3);
		const db = raw(dir);
		// What a version 6 database looks like to a reader that opened it without migrating.
		db.exec("DROP TABLE audit_format");
		db.prepare("UPDATE schema_meta SET version = 6").run();
		dropTriggers(db);
		db.prepare(`UPDATE audit SET data = '{"resource":"fs:file-2.txt","bytes":20}' WHERE seq = 2`).run();
		db.close();
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 3 });
		const edit = raw(dir);
		edit.prepare(`UPDATE audit SET data = '{"bytes":21,"resource":"fs:file-2.txt"}' WHERE seq = 2`).run();
		edit.close();
		expect(await store.verifyAudit()).toEqual(EDITED(2, 1));
	});
	it("verifies records whose text columns hold what SQL and JavaScript may quote differently, and still names an edit in one", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		// Control characters, quotes, backslashes, a non-BMP character, U+2028: each column as odd as text gets.
		const odd = "tab\t nl\n cr\r bs\\ q\" nul\u0000 bell\u0007 del\u007f ls\u2028 emoji \u{1F600} é";
		await store.appendAudit({ session: odd, turn: 1, kind: "effect", call_id: odd, data: { text: odd } });
		await store.appendAudit({ session: "s1", turn: 2, kind: "effect", data: {} });
		await store.appendAudit({ session: odd, turn: 3, kind: "effect", data: { [odd]: [odd] } });
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 3 });
		const db = raw(dir);
		dropTriggers(db);
		db.prepare("UPDATE audit SET session = ? WHERE seq = 3").run(`${odd}!`);
		db.close();
		expect(await store.verifyAudit()).toEqual(EDITED(3, 2));
	});
});

describe("the walker's fast path over a store's spelled line", () => {
	const fields = { seq: 1, time: "2025-01-01T00:00:00.000Z", session: "s1", turn: 1, kind: "effect" as const, call_id: "c1", data: { a: 1 } };
	const hash = auditHash(GENESIS_HASH, fields);
	const body = `{"call_id":"c1","data":{"a":1},"kind":"effect","seq":1,"session":"s1","time":"2025-01-01T00:00:00.000Z","turn":1}`;

	it.each([
		["the line a store spells", `1 ${hash} ${GENESIS_HASH}\n${body}`, undefined],
		["a body that does not hash", `1 ${hash} ${GENESIS_HASH}\n${body.replace('"a":1', '"a":2')}`, false],
		["a short hash", `1 ${hash.slice(1)} ${GENESIS_HASH}\n${body}`, false],
		["no seq", ` ${hash} ${GENESIS_HASH}\n${body}`, false],
		["a seq alone (columns that spell no line)", 1, false],
	])("%s: %j", (_, line, outcome) => {
		expect(STORE_RULES.chain.walker().pushHashed(line)).toBe(outcome);
	});

	it("holds a line to the chain's order: the wrong seq or prev_hash is a problem, not a pass", () => {
		const walker = STORE_RULES.chain.walker();
		expect(walker.pushHashed(`2 ${hash} ${GENESIS_HASH}\n${body}`)).toMatchObject({ seq: 1, reason: expect.stringContaining("expected seq 1") });
		const other = STORE_RULES.chain.walker();
		expect(other.pushHashed(`1 ${hash} ${"1".repeat(64)}\n${body}`)).toMatchObject({ seq: 1, reason: expect.stringContaining("prev_hash") });
	});
});
