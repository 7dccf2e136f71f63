/**
 * Opening warden.db in a state dir: make the dir, open the file, set the pragmas, migrate.
 * Every way this can fail becomes one StoreError line that names the dir and the problem.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { isNotADatabase, oneLine } from "./sqlite-errors.js";
import { migrate } from "./sqlite-migrations.js";
import { StoreError } from "./store.js";

export const DB_FILE = "warden.db";

/** How long SQLite waits out a busy file outside a write transaction (a reader during WAL recovery, the opening); a write waits by write-lock-wait.ts. */
export const BUSY_TIMEOUT_MS = 10_000;

export function openDatabase(stateDir: string): Database.Database {
	const label = `state dir ${stateDir}`;
	prepareStateDir(stateDir);
	const where = `${label}: ${DB_FILE}`;
	let db: Database.Database;
	try {
		db = new Database(join(stateDir, DB_FILE));
	} catch (error) {
		throw describe(error, where);
	}
	try {
		db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
		whileBusy(() => {
			// The first read of the file happens here, so a garbage file is discovered here.
			db.pragma("journal_mode = WAL");
			// FULL: a commit survives power loss, which the audit chain's "durable before it resolves" needs.
			db.pragma("synchronous = FULL");
			migrate(db, where);
		});
	} catch (error) {
		db.close();
		throw describe(error, where);
	}
	return db;
}

/** Opening attempts while another process holds the file busy; each waits longer, about 5 s in all. */
const OPEN_ATTEMPTS = 12;

/**
 * SQLite answers SQLITE_BUSY without calling the busy handler in a few places that opening
 * reaches: while another connection runs WAL recovery or switches the journal mode of a fresh
 * file, which happens when several processes open one state dir at once. Those steps are
 * idempotent (the migration is one IMMEDIATE transaction), so they are simply tried again after a
 * short wait; a file still busy after the last attempt is refused as before.
 */
function whileBusy(open: () => void): void {
	for (let attempt = 1; ; attempt++) {
		try {
			open();
			return;
		} catch (error) {
			const code = (error as { code?: unknown } | null)?.code;
			const busy = typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
			if (!busy || attempt >= OPEN_ATTEMPTS) throw error;
			Atomics.wait(PAUSE, 0, 0, 10 * attempt * attempt);
		}
	}
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** Makes the state dir if needed and checks it is a writable directory. */
export function prepareStateDir(stateDir: string): void {
	const label = `state dir ${stateDir}`;
	if (existsSync(stateDir) && !statSync(stateDir).isDirectory()) {
		throw new StoreError(`${label}: exists but is not a directory`);
	}
	try {
		mkdirSync(stateDir, { recursive: true });
	} catch (error) {
		throw new StoreError(`${label}: cannot create the directory (${oneLine(error)})`);
	}
	try {
		accessSync(stateDir, constants.W_OK | constants.X_OK);
	} catch (error) {
		throw new StoreError(`${label}: the directory is not writable (${oneLine(error)})`);
	}
}

function describe(error: unknown, where: string): StoreError {
	if (error instanceof StoreError) return error;
	if (isNotADatabase(error)) return new StoreError(`${where} is not a valid database (${oneLine(error)})`);
	return new StoreError(`${where} cannot be opened (${oneLine(error)})`);
}
