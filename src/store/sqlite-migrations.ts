/**
 * The SQLite schema, as an ordered list of versioned migrations. A database this code did not
 * create, or one from a newer Warden, is refused rather than altered.
 */
import type { Database } from "better-sqlite3";
import { oneLine } from "./sqlite-errors.js";
import { AUDIT_TABLE_EXTRAS, AUDIT_TABLE_SQL, V12_ROW_AS_LINE } from "./sqlite-audit-table.js";
import { MEMORY_SCHEMA } from "./sqlite-memory.js";
import { StoreError } from "./store.js";

export interface Migration {
	version: number;
	description: string;
	up(db: Database): void;
}

/** Marks a database as Warden's, so a stranger's SQLite file is never migrated into one. */
export const SCHEMA_APP = "warden";

/** The audit table of versions 1 to 12 (nine plain columns), its index and its triggers. */
export const V1_AUDIT_TABLE = `
	CREATE TABLE audit (
		seq INTEGER PRIMARY KEY,
		time TEXT NOT NULL,
		session TEXT NOT NULL,
		turn INTEGER NOT NULL,
		kind TEXT NOT NULL,
		call_id TEXT,
		data TEXT NOT NULL CHECK (json_valid(data)),
		prev_hash TEXT NOT NULL,
		hash TEXT NOT NULL
	);
	CREATE INDEX audit_session ON audit (session, seq);
	CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
	BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;
	CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
	BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;
`;

export const MIGRATIONS: readonly Migration[] = [
	{
		version: 1,
		description: "sessions, events, messages and the append-only audit chain",
		up(db) {
			db.exec(`
				CREATE TABLE sessions (
					id TEXT PRIMARY KEY,
					workspace TEXT NOT NULL,
					mode TEXT NOT NULL,
					model TEXT NOT NULL,
					created_at TEXT NOT NULL,
					ended_at TEXT,
					status TEXT NOT NULL DEFAULT 'active',
					turns INTEGER NOT NULL DEFAULT 0
				);
				CREATE INDEX sessions_created ON sessions (created_at);

				CREATE TABLE events (
					session TEXT NOT NULL,
					seq INTEGER NOT NULL,
					turn INTEGER NOT NULL,
					kind TEXT NOT NULL,
					time TEXT NOT NULL,
					json TEXT NOT NULL,
					PRIMARY KEY (session, seq)
				);

				CREATE TABLE messages (
					session TEXT NOT NULL,
					seq INTEGER NOT NULL,
					json TEXT NOT NULL,
					PRIMARY KEY (session, seq)
				);

				${V1_AUDIT_TABLE}

				-- The last appended record, kept apart from the chain so that removing records
				-- from the end of the chain (which no link can show) is still detected.
				CREATE TABLE audit_head (
					id INTEGER PRIMARY KEY CHECK (id = 1),
					seq INTEGER NOT NULL,
					hash TEXT NOT NULL
				);
			`);
		},
	},
	{
		version: 2,
		description: "approved rules: persisted always-allow and always-deny answers, revocable",
		up(db) {
			db.exec(`
				CREATE TABLE approved_rules (
					id INTEGER PRIMARY KEY AUTOINCREMENT,
					tool TEXT NOT NULL,
					pattern TEXT NOT NULL,
					outcome TEXT NOT NULL CHECK (outcome IN ('allow', 'deny')),
					workspace TEXT NOT NULL,
					created_at TEXT NOT NULL,
					created_by TEXT NOT NULL,
					session TEXT NOT NULL,
					revoked_at TEXT,
					revoked_by TEXT
				);
				CREATE INDEX approved_rules_workspace ON approved_rules (workspace, id);
			`);
		},
	},
	{
		version: 3,
		description: "sub-agent lineage: a child session names its parent session and the call that spawned it",
		up(db) {
			db.exec(`
				ALTER TABLE sessions ADD COLUMN parent_session TEXT;
				ALTER TABLE sessions ADD COLUMN parent_call TEXT;
				CREATE INDEX sessions_parent ON sessions (parent_session);
			`);
		},
	},
	{
		version: 4,
		description: "file labels: the flow label recorded on written content, keyed by workspace, path and content hash",
		up(db) {
			db.exec(`
				CREATE TABLE file_labels (
					workspace TEXT NOT NULL,
					path TEXT NOT NULL,
					sha256 TEXT NOT NULL,
					label TEXT NOT NULL CHECK (json_valid(label)),
					session TEXT NOT NULL,
					created_at TEXT NOT NULL,
					PRIMARY KEY (workspace, path, sha256)
				);
			`);
		},
	},
	{
		version: 5,
		description: "protected operations, before-image blobs, task runs and their commands, and flow labels on messages",
		up(db) {
			db.exec(`
				CREATE TABLE operations (
					id TEXT PRIMARY KEY,
					session TEXT NOT NULL,
					turn INTEGER NOT NULL,
					call_id TEXT NOT NULL,
					kind TEXT NOT NULL,
					resource TEXT NOT NULL,
					state TEXT NOT NULL CHECK (state IN ('prepared', 'dispatched', 'committed', 'failed', 'unknown', 'abandoned')),
					intent TEXT NOT NULL CHECK (json_valid(intent)),
					reserved TEXT NOT NULL CHECK (json_valid(reserved)),
					outcome TEXT CHECK (outcome IS NULL OR json_valid(outcome)),
					audit_seq INTEGER,
					created_at TEXT NOT NULL,
					updated_at TEXT NOT NULL
				);
				-- Partial: only pending rows are in it, so recovery on open reads what a crash can
				-- have left pending, however long the history of settled operations grows.
				CREATE INDEX operations_pending ON operations (state, created_at) WHERE state IN ('prepared', 'dispatched');
				CREATE INDEX operations_call ON operations (session, call_id);

				-- Before-images by content hash: the same content is kept once, however often it is overwritten.
				CREATE TABLE blobs (
					sha256 TEXT PRIMARY KEY,
					bytes BLOB NOT NULL,
					created_at TEXT NOT NULL
				);

				CREATE TABLE task_runs (
					id TEXT PRIMARY KEY,
					session TEXT NOT NULL,
					state TEXT NOT NULL CHECK (state IN ('running', 'completed', 'failed', 'cancelled', 'needs_attention')),
					attention TEXT,
					created_at TEXT NOT NULL,
					updated_at TEXT NOT NULL
				);
				CREATE INDEX task_runs_created ON task_runs (created_at);

				CREATE TABLE run_commands (
					run TEXT NOT NULL,
					command_id TEXT NOT NULL,
					kind TEXT NOT NULL CHECK (kind IN ('start', 'follow-up', 'continue', 'cancel')),
					input TEXT,
					state TEXT NOT NULL DEFAULT 'accepted' CHECK (state IN ('accepted', 'done')),
					result TEXT CHECK (result IS NULL OR json_valid(result)),
					created_at TEXT NOT NULL,
					PRIMARY KEY (run, command_id)
				);

				ALTER TABLE messages ADD COLUMN label TEXT CHECK (label IS NULL OR json_valid(label));
			`);
		},
	},
	{
		version: 6,
		description: "the one-use authority (approval lease, counted-grant uses) an operation's intent consumed",
		up(db) {
			db.exec("ALTER TABLE operations ADD COLUMN consumed TEXT CHECK (consumed IS NULL OR json_valid(consumed))");
		},
	},
	{
		version: 7,
		description: "audit records keep data as canonical JSON from here on; audit_format names the first such record",
		up(db) {
			// Records already in the chain keep the data text they were written with (key order as built),
			// so verification decodes and re-canonicalises those; every later one is verified from its bytes.
			db.exec(`
				CREATE TABLE audit_format (
					id INTEGER PRIMARY KEY CHECK (id = 1),
					canonical_from INTEGER NOT NULL
				);
				INSERT INTO audit_format (id, canonical_from) SELECT 1, COALESCE(MAX(seq), 0) + 1 FROM audit;
			`);
		},
	},
	{
		version: 8,
		description: "process leases, and the lease that owns each running session and pending operation (many processes per state dir)",
		up(db) {
			db.exec(`
				CREATE TABLE process_leases (
					token TEXT PRIMARY KEY,
					pid INTEGER NOT NULL,
					pid_start TEXT,
					hostname TEXT NOT NULL,
					started_at TEXT NOT NULL,
					heartbeat_at TEXT NOT NULL
				);
				-- NULL: not running (sessions) or written before leases were kept; recovery treats it as a gone holder's.
				ALTER TABLE sessions ADD COLUMN owner TEXT;
				ALTER TABLE operations ADD COLUMN owner TEXT;
				CREATE INDEX sessions_active ON sessions (status) WHERE status = 'active';
			`);
		},
	},
	{
		version: 9,
		description: "mcp_pins: the definition of each MCP tool a human approved, per workspace and server, by digest",
		up(db) {
			db.exec(`
				CREATE TABLE mcp_pins (
					id INTEGER PRIMARY KEY AUTOINCREMENT,
					workspace TEXT NOT NULL,
					server TEXT NOT NULL,
					tool TEXT NOT NULL,
					digest TEXT NOT NULL,
					definition TEXT NOT NULL CHECK (json_valid(definition)),
					flags TEXT NOT NULL CHECK (json_valid(flags)),
					approved_at TEXT NOT NULL,
					approved_by TEXT NOT NULL,
					revoked_at TEXT,
					revoked_by TEXT
				);
				CREATE UNIQUE INDEX mcp_pins_live ON mcp_pins (workspace, server, tool) WHERE revoked_at IS NULL;
			`);
		},
	},
	{
		version: 10,
		description: "memory: scoped records (user, project, session) with their labels, and an FTS5 index over them",
		up(db) {
			db.exec(MEMORY_SCHEMA);
		},
	},
	{
		version: 11,
		description: "asks: each pending approval or exact-release request, owned by its asker's lease, answered at most once",
		up(db) {
			db.exec(`
				CREATE TABLE asks (
					id TEXT PRIMARY KEY,
					session TEXT NOT NULL,
					call_id TEXT NOT NULL,
					kind TEXT NOT NULL,
					body TEXT NOT NULL CHECK (json_valid(body)),
					-- The asker's process lease: once that holder is gone, the ask can never be answered.
					owner TEXT,
					created_at TEXT NOT NULL,
					expires_at TEXT,
					answer TEXT,
					answered_by TEXT,
					answered_at TEXT,
					expired_at TEXT,
					expired_why TEXT,
					CHECK (answer IS NULL OR expired_at IS NULL),
					CHECK ((answer IS NULL) = (answered_by IS NULL))
				);
				CREATE INDEX asks_open ON asks (created_at) WHERE answer IS NULL AND expired_at IS NULL;
			`);
		},
	},
	{
		version: 12,
		description: "mcp_refusals: an MCP definition a human refused for good (reject always), per workspace and server, by digest",
		up(db) {
			db.exec(`
				CREATE TABLE mcp_refusals (
					id INTEGER PRIMARY KEY AUTOINCREMENT,
					workspace TEXT NOT NULL,
					server TEXT NOT NULL,
					tool TEXT NOT NULL,
					digest TEXT NOT NULL,
					refused_at TEXT NOT NULL,
					refused_by TEXT NOT NULL
				);
				CREATE UNIQUE INDEX mcp_refusals_digest ON mcp_refusals (workspace, server, tool, digest);
			`);
		},
	},
	{
		version: 13,
		description: "audit records as one stored line each (the hashed bytes), every other column generated from it; audit_format names the first record written as a line",
		up(db) {
			// The old table is renamed out of the way (its triggers and index go with it when it is
			// dropped), so the new one is created under its own name and sqlite_schema keeps
			// AUDIT_TABLE_SQL exactly as verification expects it.
			db.exec(`
				ALTER TABLE audit RENAME TO audit_v12;
				${AUDIT_TABLE_SQL};
				INSERT INTO audit (seq, line) SELECT seq, ${V12_ROW_AS_LINE} FROM audit_v12 ORDER BY seq;
				DROP TABLE audit_v12;
				${AUDIT_TABLE_EXTRAS}
				ALTER TABLE audit_format ADD COLUMN line_from INTEGER;
				UPDATE audit_format SET line_from = (SELECT COALESCE(MAX(seq), 0) + 1 FROM audit);
			`);
		},
	},
	{
		version: 14,
		description: "asks: the content of an answer that carries one (an MCP elicitation accepted with its fields), kept only until its asker takes it",
		up(db) {
			db.exec("ALTER TABLE asks ADD COLUMN answer_content TEXT CHECK (answer_content IS NULL OR json_valid(answer_content))");
		},
	},
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Tables every current-schema database must have; a missing one means damage. */
const REQUIRED_TABLES = [
	"schema_meta",
	"sessions",
	"events",
	"messages",
	"audit",
	"audit_head",
	"audit_format",
	"approved_rules",
	"file_labels",
	"operations",
	"blobs",
	"task_runs",
	"run_commands",
	"process_leases",
	"mcp_pins",
	"mcp_refusals",
	"memory_records",
	"memory_fts",
	"asks",
];

/**
 * Brings the database to SCHEMA_VERSION, or refuses it. Runs in one IMMEDIATE transaction so
 * two processes opening a fresh state dir at once cannot both create the schema.
 */
export function migrate(db: Database, where: string): void {
	// A current schema, the common case, is known by reading alone: an open then never waits for a running writer's lock.
	if (isCurrent(db)) return;
	db.transaction(() => {
		const tables = listTables(db);
		let current = 0;
		if (!tables.includes("schema_meta")) {
			if (tables.length > 0) {
				throw new StoreError(
					`${where} is not a Warden database (it has tables ${tables.slice(0, 5).join(", ")} but no schema_meta)`,
				);
			}
			db.exec(
				"CREATE TABLE schema_meta (id INTEGER PRIMARY KEY CHECK (id = 1), app TEXT NOT NULL, version INTEGER NOT NULL)",
			);
			db.prepare("INSERT INTO schema_meta (id, app, version) VALUES (1, ?, 0)").run(SCHEMA_APP);
		} else {
			current = readVersion(db, where);
		}
		if (current > SCHEMA_VERSION) {
			throw new StoreError(
				`${where} has schema version ${current}, newer than this Warden supports (${SCHEMA_VERSION}); upgrade Warden`,
			);
		}
		for (const migration of MIGRATIONS) {
			if (migration.version <= current) continue;
			migration.up(db);
			db.prepare("UPDATE schema_meta SET version = ? WHERE id = 1").run(migration.version);
		}
		const present = listTables(db);
		const missing = REQUIRED_TABLES.filter((name) => !present.includes(name));
		if (missing.length > 0) {
			throw new StoreError(
				`${where} is damaged (schema version ${SCHEMA_VERSION} but table ${missing.join(", ")} is missing)`,
			);
		}
	}).immediate();
}

/** Whether the schema is SCHEMA_VERSION's with every table, read in one snapshot; any doubt is left to migrate's checks. */
function isCurrent(db: Database): boolean {
	try {
		return db.transaction(() => {
			const row = db.prepare("SELECT app, version FROM schema_meta WHERE id = 1").get() as { app: unknown; version: unknown } | undefined;
			if (row?.app !== SCHEMA_APP || row.version !== SCHEMA_VERSION) return false;
			const present = listTables(db);
			return REQUIRED_TABLES.every((name) => present.includes(name));
		}).deferred();
	} catch {
		return false;
	}
}

function listTables(db: Database): string[] {
	const rows = db
		.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
		.all() as { name: string }[];
	return rows.map((row) => row.name);
}

function readVersion(db: Database, where: string): number {
	let row: { app: unknown; version: unknown } | undefined;
	try {
		row = db.prepare("SELECT app, version FROM schema_meta WHERE id = 1").get() as typeof row;
	} catch (error) {
		throw new StoreError(`${where} is not a Warden database (schema_meta is unreadable: ${oneLine(error)})`);
	}
	if (!row || row.app !== SCHEMA_APP) {
		throw new StoreError(`${where} is not a Warden database (schema_meta does not name Warden)`);
	}
	if (typeof row.version !== "number" || !Number.isInteger(row.version) || row.version < 0) {
		throw new StoreError(`${where} is damaged (schema version ${String(row.version)} is not a whole number)`);
	}
	return row.version;
}
