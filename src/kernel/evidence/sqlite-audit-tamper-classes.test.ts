/**
 * One row per way to tamper with a stored record that the other tamper tests leave out: the
 * hash columns, each column holding the same bytes as another type, a number no record has, the
 * store's head. Each is named as the first bad record, whichever path decides it; and untampered
 * records are all decided by the walker's fast path over the line SQLite spells, so a guard that
 * stops matching real rows (every record verified the slow way) fails here rather than only in the bench.
 */
import { describe, expect, it } from "vitest";
import { SqliteStore } from "../../store/sqlite-store.js";
import type { ChainWalker } from "../../store/store-rules.js";
import { tamperFixture } from "../test-support/audit-tamper.js";
import { STORE_RULES } from "./store-rules.js";

const { tempDir, openStore, raw, dropTriggers, fill } = tamperFixture("warden-audit-tamper-classes-");

const edited = (seq: number) => ({ ok: false, checked: seq - 1, firstBad: { seq, reason: `record ${seq}: hash does not match its contents (edited?)` } });
const relinked = (seq: number) => ({
	ok: false,
	checked: seq - 1,
	firstBad: { seq, reason: `record ${seq}: prev_hash does not match record ${seq - 1} (reordered or deleted?)` },
});

async function tampered(records: number, ...sql: string[]): Promise<string> {
	const dir = tempDir();
	await fill(openStore(dir), records);
	const db = raw(dir);
	dropTriggers(db);
	db.pragma("ignore_check_constraints = ON");
	for (const statement of sql) db.prepare(statement).run();
	db.close();
	return dir;
}

describe("SqliteStore audit verification names every class of tampering", () => {
	it.each([
		["hash replaced by another record's", "UPDATE audit SET hash = (SELECT hash FROM audit WHERE seq = 5) WHERE seq = 4", edited(4)],
		["hash cut short", "UPDATE audit SET hash = substr(hash, 2) WHERE seq = 4", edited(4)],
		["hash in capitals", "UPDATE audit SET hash = upper(hash) WHERE seq = 4", edited(4)],
		["prev_hash replaced", "UPDATE audit SET prev_hash = (SELECT hash FROM audit WHERE seq = 1) WHERE seq = 4", relinked(4)],
		["turn as a fraction", "UPDATE audit SET turn = turn + 0.5 WHERE seq = 4", edited(4)],
		["turn as a blob of the same digits", "UPDATE audit SET turn = CAST(turn AS BLOB) WHERE seq = 4", edited(4)],
		["kind as a blob of the same bytes", "UPDATE audit SET kind = CAST(kind AS BLOB) WHERE seq = 4", edited(4)],
		["session as a blob of the same bytes", "UPDATE audit SET session = CAST(session AS BLOB) WHERE seq = 4", edited(4)],
		["time as a blob of the same bytes", "UPDATE audit SET time = CAST(time AS BLOB) WHERE seq = 4", edited(4)],
		["call_id as a blob of the same bytes", "UPDATE audit SET call_id = CAST(call_id AS BLOB) WHERE seq = 4", edited(4)],
		["hash as a blob of the same bytes", "UPDATE audit SET hash = CAST(hash AS BLOB) WHERE seq = 4", edited(4)],
		["prev_hash as a blob of the same bytes", "UPDATE audit SET prev_hash = CAST(prev_hash AS BLOB) WHERE seq = 4", relinked(4)],
		["data emptied", "UPDATE audit SET data = '{}' WHERE seq = 4", edited(4)],
		["data with a space added", `UPDATE audit SET data = replace(data, ',"', ', "') WHERE seq = 4`, edited(4)],
		["the first record's prev_hash", "UPDATE audit SET prev_hash = (SELECT hash FROM audit WHERE seq = 6) WHERE seq = 1", {
			ok: false,
			checked: 0,
			firstBad: { seq: 1, reason: "record 1: prev_hash does not match the genesis hash (reordered or deleted?)" },
		}],
	] as const)("%s", async (_what, sql, verdict) => {
		const store = openStore(await tampered(6, sql));
		expect(await store.verifyAudit()).toEqual(verdict);
	});

	it("a call_id added to a record that had none", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 2);
		await store.appendAudit({ session: "s1", turn: 3, kind: "effect", data: { bytes: 30 } });
		await fill(store, 1);
		const db = raw(dir);
		dropTriggers(db);
		db.prepare("UPDATE audit SET call_id = 'c3' WHERE seq = 3").run();
		db.close();
		expect(await store.verifyAudit()).toEqual(edited(3));
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

	it("every untampered record by the fast path, and a record whose column changed type by the slow one", async () => {
		const dir = await tampered(6);
		const { rules, counts } = counting();
		const store = SqliteStore.open(dir, { rules });
		try {
			await store.appendAudit({ session: "s1", turn: 7, kind: "effect", data: { odd: "\u2028 \u{1F600} é\t" } });
			expect(await store.verifyAudit()).toEqual({ ok: true, checked: 7 });
			expect(counts).toEqual({ fast: 7, slow: 0 });
			// tampered() has dropped the triggers already.
			const db = raw(dir);
			db.prepare("UPDATE audit SET data = CAST(data AS BLOB) WHERE seq = 5").run();
			db.close();
			counts.fast = 0;
			expect(await store.verifyAudit()).toEqual(edited(5));
			expect(counts).toEqual({ fast: 4, slow: 1 });
		} finally {
			await store.close();
		}
	});
});
