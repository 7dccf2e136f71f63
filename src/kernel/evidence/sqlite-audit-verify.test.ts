/** Audit verification over the SQLite store's stored lines: what each tampered field or row is named as, and what older tables migrate to. */
import { describe, expect, it } from "vitest";
import { auditLine } from "../../store/sqlite-audit-table.js";
import { dropVersion13, insertV12Rows } from "../../store/test-support/audit-v12.js";
import { editLine, lineParts, tamperFixture, withField } from "../test-support/audit-tamper.js";
import { openSqliteStore } from "./store-rows.js";
import { GENESIS_HASH, auditHash, canonicalBody, canonicalJson } from "./audit-chain.js";
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
	// Back to version 6: without migration 13's lines, 12's refusals, 11's asks, 10's memory, 9's pins, 8's leases and owners and 7's audit_format.
	dropVersion13(db);
	db.exec("DROP TABLE mcp_refusals");
	db.exec("DROP TABLE asks");
	db.exec("DROP TABLE memory_fts; DROP TABLE memory_records");
	db.exec("DROP TABLE mcp_pins");
	db.exec("DROP INDEX sessions_active; DROP TABLE process_leases; ALTER TABLE sessions DROP COLUMN owner; ALTER TABLE operations DROP COLUMN owner");
	db.exec("DROP TABLE audit_format");
	db.prepare("UPDATE schema_meta SET version = 6").run();
	const records = chainOf(n, (i) => ({ zeta: i, alpha: { y: 2, x: 1 } }));
	insertV12Rows(db, records.map((record) => ({ ...record, data: JSON.stringify(record.data) })));
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
		const line = db.prepare("SELECT line FROM audit WHERE seq = 1").pluck().get() as string;
		db.close();
		const { seq, time, session, turn, kind } = record;
		expect(line).toBe(auditLine(1, record.hash, GENESIS_HASH, canonicalBody({ seq, time, session, turn, kind: kind as AuditRecord["kind"], data: canonicalJson(record.data) })));
		expect(lineParts(line).body).toContain('"data":{"alpha":{"x":[3,{"a":2,"b":1}],"y":"\\n\\""},"zeta":1},"kind"');
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 1 });
	});

	it("names a record whose data was rewritten with the same meaning in other bytes", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 5);
		const db = raw(dir);
		dropTriggers(db);
		// Decodes to exactly what was hashed, but is no longer the bytes that were: an edit all the same.
		editLine(db, 3, (line) => withField(line, "data", '{"resource":"fs:file-3.txt","bytes":30}'));
		db.close();
		expect(await store.verifyAudit()).toEqual(EDITED(3, 2));
	});

	it.each([
		["kind", (l: string) => withField(l, "kind", '"tool.outcome"')],
		["session", (l: string) => withField(l, "session", '"s2"')],
		["time", (l: string) => withField(l, "time", '"2020-01-01T00:00:00.000Z"')],
		["turn", (l: string) => withField(l, "turn", "99")],
		["call_id", (l: string) => withField(l, "call_id", '"c99"')],
		["call_id (removed)", (l: string) => l.replace('"call_id":"c4",', "")],
		["call_id (null)", (l: string) => withField(l, "call_id", "null")],
		["turn (as text)", (l: string) => withField(l, "turn", '"four"')],
	])("names a record whose %s was edited in its line", async (_field, edit) => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 6);
		const db = raw(dir);
		dropTriggers(db);
		editLine(db, 4, edit);
		db.close();
		expect(await store.verifyAudit()).toEqual(EDITED(4, 3));
	});

	it("walks a chain longer than one page of reads", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		// Written in one transaction through a second connection, as the store would (canonical data), to keep the test quick.
		const records = chainOf(4100, (seq) => ({ resource: `fs:file-${seq}.txt` }));
		const db = raw(dir);
		const insert = db.prepare("INSERT INTO audit (seq, line) VALUES (?, ?)");
		db.transaction(() => {
			for (const { seq, time, session, turn, kind, call_id, data, prev_hash, hash } of records) {
				insert.run(seq, auditLine(seq, hash, prev_hash, canonicalBody({ seq, time, session, turn, kind, call_id, data: canonicalJson(data) })));
			}
			db.prepare("INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?)").run(4100, records.at(-1)!.hash);
		})();
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 4100 });
		dropTriggers(db);
		editLine(db, 4099, (line) => withField(line, "turn", "0"));
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
		expect(db.prepare("SELECT canonical_from, line_from FROM audit_format").get()).toEqual({ canonical_from: 4, line_from: 4 });
		expect((db.prepare("SELECT line FROM audit ORDER BY seq").pluck().all() as string[]).map((line) => line.indexOf("zeta") < line.indexOf("alpha"))).toEqual([
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
		editLine(db, 2, (line) => withField(line, "data", '{"zeta":2,"alpha":{"y":2,"x":"forged"}}'));
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
		editLine(db, 3, (line) => withField(line, "data", '{"b":1,"a":2}'));
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

describe("SqliteStore audit verification of a chain written as version 12 columns", () => {
	/** A version 12 database holding `records` (their values as given), reopened so migrations 13 and 14 run. */
	async function migratedFromV12(dir: string, rows: Parameters<typeof insertV12Rows>[1], sql: string[] = []) {
		await openSqliteStore(dir).close();
		const db = raw(dir);
		// Migration 14's column goes too, so migrating from 12 adds it again.
		db.exec("ALTER TABLE asks DROP COLUMN answer_content");
		dropVersion13(db);
		insertV12Rows(db, rows);
		db.pragma("ignore_check_constraints = ON");
		if (sql.length > 0) dropTriggers(db);
		for (const statement of sql) db.exec(statement);
		const last = rows.at(-1);
		if (last) db.prepare("INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash").run(last.seq, last.hash);
		db.prepare("UPDATE schema_meta SET version = 12").run();
		db.close();
		return openStore(dir);
	}

	// Control characters, quotes, backslashes, a non-BMP character, U+2028: text as odd as it gets,
	// which SQLite's json_quote (spelling the lines in the migration) may quote otherwise than the kernel.
	const odd = "tab\t nl\n cr\r bs\\ q\" nul\u0000 bell\u0007 del\u007f ls\u2028 emoji \u{1F600} é";
	const oddChain = () =>
		chainOf(3, (seq) => (seq === 2 ? {} : { text: odd, [odd]: [odd] })).map((record) => ({
			...record,
			session: record.seq === 2 ? "s1" : odd,
			call_id: odd,
		})).reduce<AuditRecord[]>((chain, record) => {
			// Rehashed with the odd values, each linked onto the one before.
			const prev = chain.at(-1)?.hash ?? GENESIS_HASH;
			const { seq, time, session, turn, kind, call_id, data } = record;
			chain.push({ ...record, prev_hash: prev, hash: auditHash(prev, { seq, time, session, turn, kind, call_id, data }) });
			return chain;
		}, []);

	it("migrates records with odd text, verifies them and reads them back as they were", async () => {
		const dir = tempDir();
		const chain = oddChain();
		const store = await migratedFromV12(dir, chain.map((record) => ({ ...record, data: canonicalJson(record.data) })));
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 3 });
		expect(await store.listAudit()).toEqual(chain);
		await store.appendAudit({ session: odd, turn: 4, kind: "effect", data: { text: odd } });
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 4 });
	});

	it("still names an edit in a migrated record", async () => {
		const dir = tempDir();
		const store = await migratedFromV12(dir, oddChain().map((record) => ({ ...record, data: canonicalJson(record.data) })));
		const db = raw(dir);
		dropTriggers(db);
		editLine(db, 3, (line) => withField(line, "session", JSON.stringify(`${odd}!`)));
		db.close();
		expect(await store.verifyAudit()).toEqual(EDITED(3, 2));
	});

	it("migrates a record whose columns were edited to other types before the upgrade, and names it", async () => {
		const dir = tempDir();
		const chain = chainOf(4, (seq) => ({ resource: `fs:file-${seq}.txt` }));
		const store = await migratedFromV12(
			dir,
			chain.map((record) => ({ ...record, data: canonicalJson(record.data) })),
			["UPDATE audit SET kind = CAST(kind AS BLOB) WHERE seq = 3"],
		);
		expect(await store.verifyAudit()).toEqual({
			ok: false,
			checked: 2,
			firstBad: { seq: 3, reason: "record 3: its stored line does not start with a seq, a hash and a prev_hash (edited?)" },
		});
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
		["a seq alone (a line that does not start with its row's seq)", 1, false],
		["a body naming another seq than the line's", `1 ${hash} ${GENESIS_HASH}\n${body.replace('"seq":1,', '"seq":2,')}`, false],
	])("%s: %j", (_, line, outcome) => {
		expect(STORE_RULES.chain.walker().pushHashed(line)).toBe(outcome);
	});

	it("holds a line to the chain's order: the wrong seq or prev_hash is a problem, not a pass", () => {
		const walker = STORE_RULES.chain.walker();
		expect(walker.pushHashed(`2 ${hash} ${GENESIS_HASH}\n${body.replace('"seq":1,', '"seq":2,')}`)).toMatchObject({ seq: 1, reason: expect.stringContaining("expected seq 1") });
		const other = STORE_RULES.chain.walker();
		expect(other.pushHashed(`1 ${hash} ${"1".repeat(64)}\n${body}`)).toMatchObject({ seq: 1, reason: expect.stringContaining("prev_hash") });
	});
});
