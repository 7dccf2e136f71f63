/**
 * What the audit-chain tamper tests share: kernel-rules SQLite stores in temp dirs, a second raw
 * connection to the same file (what someone tampering with the database would use), and a chain
 * of plain records to tamper with.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import type { SqliteStore } from "../../store/sqlite-store.js";
import { tempStores } from "../../store/test-support/temp-stores.js";
import { openSqliteStore } from "../evidence/store-rows.js";

export interface TamperFixture {
	tempDir: () => string;
	openStore: (dir: string) => SqliteStore;
	raw: (dir: string) => Database.Database;
	dropTriggers: (db: Database.Database) => void;
	fill: (store: SqliteStore, n: number) => Promise<void>;
}

export function tamperFixture(prefix: string): TamperFixture {
	const { tempDir, track } = tempStores(prefix);
	return {
		tempDir,
		openStore: (dir) => track(openSqliteStore(dir)),
		raw: (dir) => new Database(join(dir, "warden.db")),
		dropTriggers: (db) => db.exec("DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;"),
		fill: async (store, n) => {
			for (let i = 1; i <= n; i++) {
				await store.appendAudit({ session: "s1", turn: i, kind: "effect", call_id: `c${i}`, data: { resource: `fs:file-${i}.txt`, bytes: i * 10 } });
			}
		},
	};
}
