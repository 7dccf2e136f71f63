/**
 * The audit table as one stored line per record (schema version 13): `<seq> <hash> <prev_hash>\n`
 * and the record's canonical body, the exact bytes its hash covers after the first two spaces. A
 * verifier then reads one value per record and hashes it as stored, where spelling the line from
 * nine columns cost more than the hashing. Every other column is VIRTUAL, generated from the line,
 * so no column can disagree with what is hashed; verification also checks the table's definition
 * (a table rebuilt with plain columns, or generated ones spelled differently, is refused).
 */
import { type AuditRow, StoreError } from "./store.js";

/** A body field, NULL where the line holds no JSON body (so an edited line fails to read, not to index). */
function bodyField(name: string): string {
	return `json_extract(CASE WHEN json_valid(substr(line, length(seq) + 132)) THEN substr(line, length(seq) + 132) END, '$.${name}')`;
}

/** The table as migration 13 creates it, byte for byte as sqlite_schema keeps it. */
export const AUDIT_TABLE_SQL = `CREATE TABLE audit (
	seq INTEGER PRIMARY KEY,
	line TEXT NOT NULL,
	hash TEXT GENERATED ALWAYS AS (substr(line, length(seq) + 2, 64)) VIRTUAL,
	prev_hash TEXT GENERATED ALWAYS AS (substr(line, length(seq) + 67, 64)) VIRTUAL,
	session TEXT GENERATED ALWAYS AS (${bodyField("session")}) VIRTUAL,
	time TEXT GENERATED ALWAYS AS (${bodyField("time")}) VIRTUAL,
	turn INTEGER GENERATED ALWAYS AS (${bodyField("turn")}) VIRTUAL,
	kind TEXT GENERATED ALWAYS AS (${bodyField("kind")}) VIRTUAL,
	call_id TEXT GENERATED ALWAYS AS (${bodyField("call_id")}) VIRTUAL,
	data TEXT GENERATED ALWAYS AS (${bodyField("data")}) VIRTUAL
)`;

/** The session index (explain and the console filter by session) and the append-only triggers. */
export const AUDIT_TABLE_EXTRAS = `
	CREATE INDEX audit_session ON audit (session, seq);
	CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
	BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;
	CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
	BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;
`;

/**
 * A version-12 row (nine plain columns) as its line, spelled by SQLite during the migration. A row
 * whose columns have types no record has (edited before the upgrade) keeps only its seq, so it
 * reads back as unreadable and fails verification instead of being laundered into a good line.
 */
export const V12_ROW_AS_LINE = `CASE WHEN typeof(turn) = 'integer' AND typeof(time) = 'text' AND typeof(session) = 'text'
	AND typeof(kind) = 'text' AND typeof(data) = 'text' AND typeof(prev_hash) = 'text' AND typeof(hash) = 'text'
	AND octet_length(prev_hash) = 64 AND octet_length(hash) = 64 AND (call_id IS NULL OR typeof(call_id) = 'text')
	THEN concat(seq, ' ', hash, ' ', prev_hash, char(10), '{',
		CASE WHEN call_id IS NULL THEN '' ELSE '"call_id":' || json_quote(call_id) || ',' END,
		'"data":', data, ',"kind":', json_quote(kind), ',"seq":', seq, ',"session":', json_quote(session),
		',"time":', json_quote(time), ',"turn":', turn, '}')
	ELSE CAST(seq AS TEXT) END`;

/** The stored line of a record whose canonical body is `body`. */
export function auditLine(seq: number, hash: string, prevHash: string, body: string): string {
	return `${seq} ${hash} ${prevHash}\n${body}`;
}

/**
 * What verification reads per record: the line where its leading seq is the row's key, else the
 * key alone (a line moved to another key, or no line at all, is decided the slow way).
 */
export const VERIFY_LINE = "CASE WHEN typeof(line) = 'text' AND substr(line, 1, length(seq) + 1) = seq || ' ' THEN line ELSE seq END";
/** The same where the keys are exactly 1..n: the line where it is text, else the key alone. */
export const TEXT_LINE = "CASE WHEN typeof(line) = 'text' THEN line ELSE seq END";

/** The fields a body holds, in its (sorted) key order. */
const BODY_KEYS = new Set(["call_id", "data", "kind", "seq", "session", "time", "turn"]);

/** Where the body starts: after `<seq> <hash:64> <prev_hash:64>\n`, whatever seq the line names. */
function bodyStart(line: string): number | undefined {
	const at = line.indexOf(" ") + 1;
	if (at < 2 || !/^\d+$/.test(line.slice(0, at - 1)) || line.charCodeAt(at + 64) !== 32 || line.charCodeAt(at + 129) !== 10) return undefined;
	return at + 130;
}

interface ParsedLine {
	fields: Record<string, unknown>;
	body: string;
	hash: string;
	prevHash: string;
}

/** A stored line's header and body, the body decoded; or a one-line reason it is not a record's line. */
function parseLine(line: unknown): ParsedLine | string {
	if (typeof line !== "string") return "its stored line is not text (edited?)";
	const start = bodyStart(line);
	if (start === undefined) return "its stored line does not start with a seq, a hash and a prev_hash (edited?)";
	const body = line.slice(start);
	let fields: unknown;
	try {
		fields = JSON.parse(body);
	} catch {
		return "data is not valid JSON (edited?)";
	}
	if (fields === null || typeof fields !== "object" || Array.isArray(fields)) return "its body is not a JSON object (edited?)";
	const extra = Object.keys(fields).find((name) => !BODY_KEYS.has(name));
	if (extra !== undefined) return `its body holds a field no record has, ${JSON.stringify(extra)} (edited?)`;
	return { fields: fields as Record<string, unknown>, body, hash: line.slice(start - 130, start - 66), prevHash: line.slice(start - 65, start - 1) };
}

/**
 * A stored line decoded into the nine values of a version-12 row (store-rules AUDIT_COLUMNS order),
 * `data` as the exact text inside the body, so a walker hashes what is stored; or a one-line
 * reason it cannot be read as a record. The seq is the body's (what is hashed), so a line moved
 * to another row is named by the walker as out of order.
 */
export function lineColumns(line: unknown): unknown[] | string {
	const parsed = parseLine(line);
	if (typeof parsed === "string") return parsed;
	const { fields, body, hash, prevHash } = parsed;
	// The data text as stored: from after the top-level `"data":` (only a call_id, a quoted text, can
	// come before it) to the tail's `,"kind":`, which no quoted text can hold.
	const dataAt = body.indexOf('"data":');
	const tailAt = body.lastIndexOf(',"kind":');
	if (fields.data === undefined || dataAt < 0 || tailAt < dataAt) return "its body has no data followed by a kind (edited?)";
	return [fields.seq, fields.time, fields.session, fields.turn, fields.kind, fields.call_id ?? null, body.slice(dataAt + 7, tailAt), prevHash, hash];
}

/** A stored line as the record it holds, or a one-line reason it is not one. */
export function lineRecord(key: number, line: unknown): AuditRow | string {
	const parsed = parseLine(line);
	if (typeof parsed === "string") return parsed;
	const { seq, time, session, turn, kind, call_id: callId, data } = parsed.fields;
	if (seq !== key) return `its body names seq ${String(seq)} (edited?)`;
	if (typeof time !== "string" || typeof session !== "string" || typeof kind !== "string" || !Number.isInteger(turn)) {
		return "its body's time, session, kind or turn has the wrong type (edited?)";
	}
	if (callId !== undefined && typeof callId !== "string") return "its body's call_id is not text (edited?)";
	if (data === null || typeof data !== "object" || Array.isArray(data)) return "its data is not a JSON object (edited?)";
	const record: AuditRow = {
		seq: key,
		time,
		session,
		turn: turn as number,
		kind,
		data: data as Record<string, unknown>,
		prev_hash: parsed.prevHash,
		hash: parsed.hash,
	};
	if (callId !== undefined) record.call_id = callId;
	return record;
}

/**
 * A row read for a reader: the record its line holds, or a StoreError naming why it is not one. With
 * `session` (the row was found through the session index, which is not what is hashed), the line
 * must name that session too.
 */
export function storedRecord(key: number, line: unknown, session?: string): AuditRow {
	const record = lineRecord(key, line);
	if (typeof record === "string") throw new StoreError(`audit record ${key}: ${record}`);
	if (session !== undefined && record.session !== session) {
		throw new StoreError(`audit record ${key}: the session index names ${session}, its line ${record.session} (edited?)`);
	}
	return record;
}
