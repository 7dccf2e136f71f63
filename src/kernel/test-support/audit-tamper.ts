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

/**
 * Rewrites one record's stored line (`<seq> <hash> <prev_hash>\n<body>`) as someone editing the
 * file would: the triggers must be dropped first.
 */
export function editLine(db: Database.Database, seq: number, edit: (line: string) => string | Buffer): void {
	const line = db.prepare("SELECT line FROM audit WHERE seq = ?").pluck().get(seq) as string;
	db.prepare("UPDATE audit SET line = ? WHERE seq = ?").run(edit(line), seq);
}

/** A line's parts, for edits that change one of them. */
export function lineParts(line: string): { seq: string; hash: string; prev: string; body: string } {
	const [header, ...rest] = line.split("\n");
	const [seq, hash, prev] = header!.split(" ") as [string, string, string];
	return { seq, hash, prev, body: rest.join("\n") };
}

export function joinLine(parts: { seq: string; hash: string; prev: string; body: string }): string {
	return `${parts.seq} ${parts.hash} ${parts.prev}\n${parts.body}`;
}

/** The line with one part replaced. */
export function withPart(line: string, part: "seq" | "hash" | "prev" | "body", value: string): string {
	return joinLine({ ...lineParts(line), [part]: value });
}

/**
 * The line with a top-level field of its body replaced by `json` (raw JSON text), every other byte
 * kept; the field added after data (or first, for call_id) if it is not there.
 */
export function withField(line: string, field: string, json: string): string {
	const parts = lineParts(line);
	const body = parts.body;
	const old = (JSON.parse(body) as Record<string, unknown>)[field];
	if (old !== undefined) {
		const text = field === "data" ? JSON.stringify(old) : `"${field}":${JSON.stringify(old)}`;
		const at = field === "data" || field === "call_id" ? body.indexOf(text) : body.lastIndexOf(text);
		if (at < 0) throw new Error(`withField: ${text} is not in ${body}`);
		const replacement = field === "data" ? json : `"${field}":${json}`;
		return joinLine({ ...parts, body: body.slice(0, at) + replacement + body.slice(at + text.length) });
	}
	return joinLine({ ...parts, body: `{"${field}":${json},${body.slice(1)}` });
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
