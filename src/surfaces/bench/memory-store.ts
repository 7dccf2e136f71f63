/**
 * A Store that keeps everything in process memory. The benchmark runs the governed pipeline over
 * it to show what durability costs; it does everything the SQLite store does except write to disk
 * (values go through JSON both ways, audit records are chained and verified the same way), so the
 * difference between the two is the cost of SQLite and fsync alone. Nothing survives the process.
 */
import type { ApprovedRule, NewApprovedRule } from "../../kernel/approval/approval-types.js";
import { ChainVerifier, GENESIS_HASH, auditHash } from "../../kernel/evidence/audit-chain.js";
import type { AuditInput, AuditRecord, AuditVerifyResult } from "../../kernel/evidence/audit-types.js";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { type Label, join } from "../../kernel/flow/label.js";
import { oneLine } from "../../store/sqlite-errors.js";
import { type FileLabelKey, type FileLabelRow, type SessionRow, type Store, type StoredMessage, StoreError } from "../../store/store.js";
import { describeFileLabelKey, labelFromJson, labelToJson } from "../../store/stored-label.js";

interface StoredAudit {
	record: AuditRecord;
	/** The data as stored; parsed again on read, as a database would return it. */
	dataJson: string;
}

export class MemoryStore implements Store {
	private readonly sessions = new Map<string, SessionRow>();
	private readonly events = new Map<string, string[]>();
	private readonly messages = new Map<string, string[]>();
	private readonly audit: StoredAudit[] = [];
	private readonly approvedRules: ApprovedRule[] = [];
	/** Label JSON by fileLabelId(key); the first recording's session and time are not read back, so not kept. */
	private readonly fileLabels = new Map<string, string>();
	private closed = false;

	constructor(private readonly now: () => Date = () => new Date()) {}

	async createSession(row: Omit<SessionRow, "status" | "turns" | "ended_at">): Promise<void> {
		this.live();
		if (this.sessions.has(row.id)) throw new StoreError(`session ${row.id} already exists`);
		this.sessions.set(row.id, {
			id: row.id,
			workspace: row.workspace,
			mode: row.mode,
			model: row.model,
			created_at: row.created_at,
			status: "active",
			turns: 0,
			...(row.parent_session === undefined ? {} : { parent_session: row.parent_session }),
			...(row.parent_call === undefined ? {} : { parent_call: row.parent_call }),
		});
	}

	async endSession(id: string, status: string, endedAt: string): Promise<void> {
		const row = this.session(id);
		row.status = status;
		row.ended_at = endedAt;
	}

	async nextTurn(id: string): Promise<number> {
		const row = this.session(id);
		row.turns += 1;
		return row.turns;
	}

	async getSession(id: string): Promise<SessionRow | undefined> {
		this.live();
		const row = this.sessions.get(id);
		return row ? { ...row } : undefined;
	}

	async listSessions(limit?: number): Promise<SessionRow[]> {
		this.live();
		const count = checkedLimit(limit);
		// Newest first; among equal times, the later insertion first, as SQLite's rowid order gives.
		const rows = [...this.sessions.values()].reverse();
		rows.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
		return rows.slice(0, count).map((row) => ({ ...row }));
	}

	async appendEvent(event: AnyWardenEvent): Promise<void> {
		this.live();
		append(this.events, event.session, toJson(event, "event"));
	}

	async listEvents(session: string): Promise<AnyWardenEvent[]> {
		this.live();
		return (this.events.get(session) ?? []).map((json) => JSON.parse(json) as AnyWardenEvent);
	}

	async appendMessage(session: string, message: unknown): Promise<void> {
		this.live();
		append(this.messages, session, toJson(message, "message"));
	}

	async listMessages(session: string): Promise<StoredMessage[]> {
		this.live();
		return (this.messages.get(session) ?? []).map((json, i) => ({ session, seq: i + 1, message: JSON.parse(json) }));
	}

	async appendAudit(input: AuditInput): Promise<AuditRecord> {
		this.live();
		const dataJson = toJson(input.data, "audit data");
		// Hash what will be read back: JSON round-tripping drops undefined and applies toJSON.
		const data = JSON.parse(dataJson) as unknown;
		if (data === null || typeof data !== "object" || Array.isArray(data)) throw new StoreError("audit data must be a JSON object");
		const last = this.audit.at(-1)?.record;
		const record: AuditRecord = {
			seq: (last?.seq ?? 0) + 1,
			time: this.now().toISOString(),
			session: input.session,
			turn: input.turn,
			kind: input.kind,
			...(input.call_id === undefined || input.call_id === null ? {} : { call_id: input.call_id }),
			data: data as Record<string, unknown>,
			prev_hash: last?.hash ?? GENESIS_HASH,
			hash: "",
		};
		record.hash = auditHash(record.prev_hash, record);
		this.audit.push({ record, dataJson });
		return readBack({ record, dataJson });
	}

	async listAudit(filter: { session?: string; limit?: number } = {}): Promise<AuditRecord[]> {
		this.live();
		const count = checkedLimit(filter.limit);
		const matching = filter.session === undefined ? this.audit : this.audit.filter((a) => a.record.session === filter.session);
		// With a limit, the most recent records, still oldest first.
		const tail = count === Number.POSITIVE_INFINITY ? matching : matching.slice(Math.max(0, matching.length - count));
		return tail.map(readBack);
	}

	async verifyAudit(): Promise<AuditVerifyResult> {
		this.live();
		const verifier = new ChainVerifier();
		for (const stored of this.audit) {
			if (verifier.push(readBack(stored))) break;
		}
		const head = this.audit.at(-1)?.record;
		return verifier.finish(head ? { seq: head.seq, hash: head.hash } : { seq: 0, hash: GENESIS_HASH });
	}

	async addApprovedRule(rule: NewApprovedRule): Promise<ApprovedRule> {
		this.live();
		const existing = this.approvedRules.find(
			(r) => r.revoked_at === undefined && r.tool === rule.tool && r.pattern === rule.pattern && r.outcome === rule.outcome && r.workspace === rule.workspace,
		);
		if (existing) return { ...existing };
		const stored: ApprovedRule = {
			id: this.approvedRules.length + 1,
			tool: rule.tool,
			pattern: rule.pattern,
			outcome: rule.outcome,
			workspace: rule.workspace,
			created_at: rule.created_at,
			created_by: rule.created_by,
			session: rule.session,
		};
		this.approvedRules.push(stored);
		return { ...stored };
	}

	async listApprovedRules(filter: { workspace?: string; includeRevoked?: boolean } = {}): Promise<ApprovedRule[]> {
		this.live();
		return this.approvedRules
			.filter((r) => (filter.workspace === undefined || r.workspace === filter.workspace) && (filter.includeRevoked || r.revoked_at === undefined))
			.map((r) => ({ ...r }));
	}

	async revokeApprovedRule(id: number, revokedAt: string, revokedBy: string): Promise<ApprovedRule> {
		this.live();
		const rule = this.approvedRules.find((r) => r.id === id);
		if (!rule) throw new StoreError(`no approved rule #${id}`);
		if (rule.revoked_at !== undefined) throw new StoreError(`approved rule #${id} was already revoked at ${rule.revoked_at}`);
		rule.revoked_at = revokedAt;
		rule.revoked_by = revokedBy;
		return { ...rule };
	}

	async putFileLabel(row: FileLabelRow): Promise<void> {
		this.live();
		const what = describeFileLabelKey(row);
		const incoming = labelToJson(row.label, what);
		const id = fileLabelId(row);
		const existing = this.fileLabels.get(id);
		this.fileLabels.set(id, existing === undefined ? incoming : labelToJson(join(labelFromJson(existing, what), row.label), what));
	}

	async getFileLabel(key: FileLabelKey): Promise<Label | undefined> {
		this.live();
		const json = this.fileLabels.get(fileLabelId(key));
		return json === undefined ? undefined : labelFromJson(json, describeFileLabelKey(key));
	}

	async close(): Promise<void> {
		this.closed = true;
	}

	private live(): void {
		if (this.closed) throw new StoreError("the in-memory store is closed");
	}

	private session(id: string): SessionRow {
		this.live();
		const row = this.sessions.get(id);
		if (!row) throw new StoreError(`unknown session ${id}`);
		return row;
	}
}

/** JSON of the three parts, so no path or workspace text can make two keys collide. */
function fileLabelId(key: FileLabelKey): string {
	return JSON.stringify([key.workspace, key.path, key.sha256]);
}

function append(lists: Map<string, string[]>, session: string, json: string): void {
	const list = lists.get(session);
	if (list) list.push(json);
	else lists.set(session, [json]);
}

/** A fresh copy each time, so a caller that edits a record cannot edit the chain. */
function readBack({ record, dataJson }: StoredAudit): AuditRecord {
	return { ...record, data: JSON.parse(dataJson) as Record<string, unknown> };
}

function checkedLimit(limit: number | undefined): number {
	if (limit === undefined) return Number.POSITIVE_INFINITY;
	if (!Number.isInteger(limit) || limit < 0) throw new StoreError(`limit must be a whole number >= 0, got ${limit}`);
	return limit;
}

function toJson(value: unknown, what: string): string {
	let json: string | undefined;
	try {
		json = JSON.stringify(value);
	} catch (error) {
		throw new StoreError(`${what} is not JSON-serializable (${oneLine(error)})`);
	}
	if (json === undefined) throw new StoreError(`${what} is not JSON-serializable`);
	return json;
}
