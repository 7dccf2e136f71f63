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

/** How long a writer waits for another process's write lock before giving up. */
const BUSY_TIMEOUT_MS = 10_000;

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
		// The first read of the file happens here, so a garbage file is discovered here.
		db.pragma("journal_mode = WAL");
		// FULL: a commit survives power loss, which the audit chain's "durable before it resolves" needs.
		db.pragma("synchronous = FULL");
		migrate(db, where);
	} catch (error) {
		db.close();
		throw describe(error, where);
	}
	return db;
}

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
