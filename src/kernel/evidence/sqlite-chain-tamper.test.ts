/**
 * The kernel's audit chain over the SQLite store's real file: an edited, deleted, renumbered,
 * truncated or reordered record is named by verifyAudit (the store walks its rows with the walker
 * the kernel's rules give it).
 */
import { describe, expect, it } from "vitest";
import { editLine, tamperFixture, withField } from "../test-support/audit-tamper.js";

const { tempDir, openStore, raw, dropTriggers, fill } = tamperFixture("warden-chain-tamper-");

describe("SqliteStore audit tampering, through the real file", () => {
	it("names an edited record", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 10);
		const db = raw(dir);
		dropTriggers(db);
		editLine(db, 7, (line) => withField(line, "data", '{"bytes":70,"resource":"fs:innocent.txt"}'));
		db.close();
		expect(await store.verifyAudit()).toEqual({
			ok: false,
			checked: 6,
			firstBad: {
				seq: 7,
				reason: "record 7: hash does not match its contents (edited?)",
			},
		});
		// A walk that stopped early leaves the store usable: the same answer again, and reads still work.
		expect((await store.verifyAudit()).ok).toBe(false);
		expect((await store.listAudit()).length).toBe(10);
	});

	it("names an edited record whose data is no longer valid JSON", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 4);
		const db = raw(dir);
		dropTriggers(db);
		db.pragma("ignore_check_constraints = ON");
		editLine(db, 3, (line) => withField(line, "data", "{broken"));
		db.close();
		const result = await store.verifyAudit();
		expect(result.ok).toBe(false);
		if (!result.ok)
			expect(result.firstBad).toEqual({
				seq: 3,
				reason: "record 3: data is not valid JSON (edited?)",
			});
	});

	it("names a deleted middle record", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 10);
		const db = raw(dir);
		dropTriggers(db);
		db.prepare("DELETE FROM audit WHERE seq = 5").run();
		db.close();
		expect(await store.verifyAudit()).toEqual({
			ok: false,
			checked: 4,
			firstBad: {
				seq: 5,
				reason: "record 5: expected seq 5, found 6 (a record was deleted?)",
			},
		});
	});

	it("detects a deletion that renumbered the records after it", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 6);
		const db = raw(dir);
		dropTriggers(db);
		db.exec("DELETE FROM audit WHERE seq = 3; UPDATE audit SET seq = seq - 1 WHERE seq > 3;");
		db.exec("UPDATE audit_head SET seq = 5");
		db.close();
		const result = await store.verifyAudit();
		expect(result.ok).toBe(false);
		if (!result.ok) {
			expect(result.firstBad).toEqual({
				seq: 3,
				reason: "record 3: expected seq 3, found 4 (a record was deleted?)",
			});
		}
	});

	it("detects records removed from the end of the chain", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 5);
		const db = raw(dir);
		dropTriggers(db);
		db.prepare("DELETE FROM audit WHERE seq >= 4").run();
		db.close();
		const result = await store.verifyAudit();
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.firstBad.seq).toBe(4);
	});

	it("detects two records whose seq values were swapped", async () => {
		const dir = tempDir();
		const store = openStore(dir);
		await fill(store, 8);
		const db = raw(dir);
		dropTriggers(db);
		db.exec(`
			UPDATE audit SET seq = -1 WHERE seq = 4;
			UPDATE audit SET seq = 4 WHERE seq = 5;
			UPDATE audit SET seq = 5 WHERE seq = -1;
		`);
		db.close();
		const result = await store.verifyAudit();
		expect(result.ok).toBe(false);
		if (!result.ok) {
			expect(result.firstBad).toEqual({
				seq: 4,
				reason: "record 4: expected seq 4, found 5 (a record was deleted?)",
			});
		}
	});
});
