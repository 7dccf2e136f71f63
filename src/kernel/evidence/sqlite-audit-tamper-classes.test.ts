/**
 * One row per way to tamper with a stored record that the other tamper tests leave out: the
 * hashes in its line, its line held as another type, a field of its body, a number no record has,
 * the table's definition, the store's head. Each is named as the first bad record, whichever path
 * decides it; and untampered records are all decided by the walker's fast path over the stored
 * line, so a guard that stops matching real rows (every record verified the slow way) fails here
 * rather than only in the bench.
 */
import type Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { AUDIT_TABLE_SQL } from "../../store/sqlite-audit-table.js";
import { SqliteStore } from "../../store/sqlite-store.js";
import type { ChainWalker } from "../../store/store-rules.js";
import { editLine, lineParts, tamperFixture, withField, withPart } from "../test-support/audit-tamper.js";
import { STORE_RULES } from "./store-rules.js";

const { tempDir, openStore, raw, dropTriggers, fill } = tamperFixture("warden-audit-tamper-classes-");

const edited = (seq: number) => ({ ok: false, checked: seq - 1, firstBad: { seq, reason: `record ${seq}: hash does not match its contents (edited?)` } });
const relinked = (seq: number) => ({
	ok: false,
	checked: seq - 1,
	firstBad: { seq, reason: `record ${seq}: prev_hash does not match record ${seq - 1} (reordered or deleted?)` },
});

type LineEdit = (line: string, db: Database.Database) => string | Buffer;

/** A chain of `records` with each edit applied to record `seq`'s line, or each SQL statement run. */
async function tampered(records: number, ...edits: (string | [number, LineEdit])[]): Promise<string> {
	const dir = tempDir();
	await fill(openStore(dir), records);
	const db = raw(dir);
	dropTriggers(db);
	db.pragma("ignore_check_constraints = ON");
	for (const edit of edits) {
		if (typeof edit === "string") db.prepare(edit).run();
		else editLine(db, edit[0], (line) => edit[1](line, db));
	}
	db.close();
	return dir;
}

/** Another record's line part. */
const partOf = (db: Database.Database, seq: number, part: "hash" | "prev") =>
	lineParts(db.prepare("SELECT line FROM audit WHERE seq = ?").pluck().get(seq) as string)[part];

const unreadable = (seq: number, why: string) => ({ ok: false, checked: seq - 1, firstBad: { seq, reason: `record ${seq}: ${why}` } });

describe("SqliteStore audit verification names every class of tampering", () => {
	it.each([
		["hash replaced by another record's", (l: string, db: Database.Database) => withPart(l, "hash", partOf(db, 5, "hash")), edited(4)],
		["hash cut short", (l: string) => withPart(l, "hash", lineParts(l).hash.slice(1)), unreadable(4, "its stored line does not start with a seq, a hash and a prev_hash (edited?)")],
		["hash in capitals", (l: string) => withPart(l, "hash", lineParts(l).hash.toUpperCase()), edited(4)],
		["prev_hash replaced", (l: string, db: Database.Database) => withPart(l, "prev", partOf(db, 1, "hash")), relinked(4)],
		["turn as a fraction", (l: string) => withField(l, "turn", "4.5"), edited(4)],
		["turn as text of the same digits", (l: string) => withField(l, "turn", '"4"'), edited(4)],
		["seq in the body changed", (l: string) => withField(l, "seq", "5"), {
			ok: false,
			checked: 3,
			firstBad: { seq: 4, reason: "record 4: expected seq 4, found 5 (a record was deleted?)" },
		}],
		["session written with an escape of the same text", (l: string) => withField(l, "session", '"\\u00731"'), edited(4)],
		["a space between a key and its value", (l: string) => l.replace('"kind":', '"kind": '), edited(4)],
		["a field no record has", (l: string) => withField(l, "zz", "1"), unreadable(4, 'its body holds a field no record has, "zz" (edited?)')],
		["the line as a blob of the same bytes", (l: string) => Buffer.from(l), unreadable(4, "its stored line is not text (edited?)")],
		["the body cut short", (l: string) => l.slice(0, -1), unreadable(4, "data is not valid JSON (edited?)")],
		["data emptied", (l: string) => withField(l, "data", "{}"), edited(4)],
		["data with a space added", (l: string) => withField(l, "data", JSON.stringify(JSON.parse(lineParts(l).body).data).replace(',"', ', "')), edited(4)],
	] as const)("%s", async (_what, edit, verdict) => {
		const store = openStore(await tampered(6, [4, edit]));
		expect(await store.verifyAudit()).toEqual(verdict);
	});

	it("the first record's prev_hash", async () => {
		const store = openStore(await tampered(6, [1, (l, db) => withPart(l, "prev", partOf(db, 6, "hash"))]));
		expect(await store.verifyAudit()).toEqual({
			ok: false,
			checked: 0,
			firstBad: { seq: 1, reason: "record 1: prev_hash does not match the genesis hash (reordered or deleted?)" },
		});
	});

	it("a call_id added to a record that had none", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 2);
		await store.appendAudit({ session: "s1", turn: 3, kind: "effect", data: { bytes: 30 } });
		await fill(store, 1);
		const db = raw(dir);
		dropTriggers(db);
		editLine(db, 3, (line) => withField(line, "call_id", '"c3"'));
		db.close();
		expect(await store.verifyAudit()).toEqual(edited(3));
	});

	it("a table rebuilt with plain columns that agree with its lines is refused before any line is read", async () => {
		const dir = await tampered(
			3,
			"ALTER TABLE audit RENAME TO audit_old",
			"CREATE TABLE audit (seq INTEGER PRIMARY KEY, line TEXT NOT NULL, hash TEXT, prev_hash TEXT, session TEXT, time TEXT, turn INTEGER, kind TEXT, call_id TEXT, data TEXT)",
			"INSERT INTO audit SELECT seq, line, hash, prev_hash, 'someone else', time, turn, kind, call_id, data FROM audit_old",
			"DROP TABLE audit_old",
		);
		const store = openStore(dir);
		expect(await store.verifyAudit()).toEqual({
			ok: false,
			checked: 0,
			firstBad: { seq: 1, reason: "the audit table's definition is not the one Warden created (rebuilt or altered?)" },
		});
	});

	it("a table rebuilt with a generated column spelled otherwise is refused", async () => {
		const dir = await tampered(
			3,
			"ALTER TABLE audit RENAME TO audit_old",
			AUDIT_TABLE_SQL.replace("'$.session'", "'$.kind'"),
			"INSERT INTO audit (seq, line) SELECT seq, line FROM audit_old",
			"DROP TABLE audit_old",
		);
		expect((await openStore(dir).verifyAudit()).ok).toBe(false);
	});

	it("the store's head naming another hash: the last record was replaced", async () => {
		const store = openStore(await tampered(6, "UPDATE audit_head SET hash = (SELECT hash FROM audit WHERE seq = 5)"));
		expect(await store.verifyAudit()).toEqual({
			ok: false,
			checked: 6,
			firstBad: { seq: 6, reason: "record 6: hash does not match the store's head (the last record was replaced?)" },
		});
	});

	it("the store's head ending before the chain does: a record appended outside the store", async () => {
		const store = openStore(await tampered(6, "UPDATE audit_head SET seq = 5, hash = (SELECT hash FROM audit WHERE seq = 5)"));
		expect(await store.verifyAudit()).toEqual({
			ok: false,
			checked: 6,
			firstBad: { seq: 6, reason: "record 6: not in the store's head, which ends at seq 5 (appended outside the store?)" },
		});
	});
});

describe("which path decides a record", () => {
	/** The kernel's walker, counting the records each path was handed. */
	function counting(): { rules: typeof STORE_RULES; counts: { fast: number; slow: number } } {
		const counts = { fast: 0, slow: 0 };
		const walker = (): ChainWalker => {
			const inner = STORE_RULES.chain.walker();
			return {
				pushHashed: (line) => {
					const verdict = inner.pushHashed(line);
					if (verdict !== false) counts.fast++;
					return verdict;
				},
				push: (row, legacy) => {
					counts.slow++;
					return inner.push(row, legacy);
				},
				finish: (head) => inner.finish(head),
			};
		};
		return { rules: { ...STORE_RULES, chain: { ...STORE_RULES.chain, walker } }, counts };
	}

	it("every untampered record by the fast path, and a record whose line changed type by the slow one", async () => {
		const dir = await tampered(6);
		const { rules, counts } = counting();
		const store = SqliteStore.open(dir, { rules });
		try {
			await store.appendAudit({ session: "s1", turn: 7, kind: "effect", data: { odd: "\u2028 \u{1F600} é\t" } });
			expect(await store.verifyAudit()).toEqual({ ok: true, checked: 7 });
			expect(counts).toEqual({ fast: 7, slow: 0 });
			// tampered() has dropped the triggers already.
			const db = raw(dir);
			db.prepare("UPDATE audit SET line = CAST(line AS BLOB) WHERE seq = 5").run();
			db.close();
			counts.fast = 0;
			expect(await store.verifyAudit()).toEqual(unreadable(5, "its stored line is not text (edited?)"));
			expect(counts).toEqual({ fast: 4, slow: 1 });
		} finally {
			await store.close();
		}
	});
});
