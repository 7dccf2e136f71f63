/**
 * A Store that keeps everything in process memory. The benchmark runs the governed pipeline over
 * it to show what durability costs; it does everything the SQLite store does except write to disk
 * (values go through JSON both ways, audit records are chained and verified the same way), so the
 * difference between the two is the cost of SQLite and fsync alone. Nothing survives the process.
 */
import { MemoryMcpPins, type McpPinStore } from "../../store/mcp-pins.js";
import { type AskStore, MemoryAsks } from "../../store/ask-rows.js";
import { InProcessMemoryRows } from "../../store/in-process-memory-rows.js";
import type { MemoryRowStore } from "../../store/memory-rows.js";
import { createHash } from "node:crypto";
import { ChainVerifier } from "../../kernel/evidence/audit-chain.js";
import { oneLine } from "../../store/sqlite-errors.js";
import { STORE_RULES } from "../../kernel/evidence/store-rules.js";
import { toAuditRecord } from "../../kernel/evidence/store-rows.js";
import {
	type AdoptedWork,
	type ApprovedRuleRow,
	type AuditRow,
	type AuditRowInput,
	type BlobRow,
	type ChainCheck,
	type EventRow,
	type LabelRow,
	type NewApprovedRuleRow,
	type OperationIntentRow,
	type OperationRowState,
	type StoredOperation,
	type FileLabelKey,
	type FileLabelRow,
	type OperationSettlement,
	type RunCommandRow,
	type SessionRow,
	type SnapshotView,
	type Store,
	type StoredMessage,
	StoreError,
	type TaskRunRow,
	type TaskRunState,
} from "../../store/store.js";
import { describeFileLabelKey, labelFromJson, labelToJson } from "../../store/stored-label.js";

interface StoredAudit {
	/** The record without its data: no caller holds anything the chain keeps. */
	record: Omit<AuditRow, "data">;
	/** The data's canonical text, as the SQLite store keeps it; parsed again on read, as a database would return it. */
	dataJson: string;
}

export class MemoryStore implements Store {
	private readonly sessions = new Map<string, SessionRow>();
	private readonly events = new Map<string, string[]>();
	/** Message JSON and label JSON (null for none), per session. */
	private readonly messages = new Map<string, [string, string | null][]>();
	private readonly audit: StoredAudit[] = [];
	private readonly approvedRules: ApprovedRuleRow[] = [];
	/** Label JSON by fileLabelId(key); the first recording's session and time are not read back, so not kept. */
	private readonly fileLabels = new Map<string, string>();
	/** Operations as JSON, in insertion order (a Map keeps it), as SQLite's rowid does. */
	private readonly operations = new Map<string, string>();
	private readonly blobs = new Map<string, Buffer>();
	private readonly taskRuns = new Map<string, string>();
	/** Commands as JSON by runCommandId, in insertion order. */
	private readonly runCommands = new Map<string, string>();
	private closed = false;
	readonly mcpPins: McpPinStore = new MemoryMcpPins();
	readonly asks: AskStore = new MemoryAsks();
	readonly memory: MemoryRowStore = new InProcessMemoryRows(STORE_RULES.labels, { appendAudit: (input) => this.appendAudit(input), appendEvent: (event) => this.appendEvent(event) });

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
		return this.sessionRows(limit);
	}

	private sessionRows(limit?: number): SessionRow[] {
		const count = checkedLimit(limit);
		// Newest first; among equal times, the later insertion first, as SQLite's rowid order gives.
		const rows = [...this.sessions.values()].reverse();
		rows.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
		return rows.slice(0, count).map((row) => ({ ...row }));
	}

	async appendEvent(event: EventRow): Promise<void> {
		this.live();
		append(this.events, event.session, toJson(event, "event"));
	}

	async listEvents(session: string, after = 0): Promise<EventRow[]> {
		this.live();
		return this.eventRows(session, after);
	}

	private eventRows(session: string, after = 0): EventRow[] {
		return (this.events.get(session) ?? []).slice(after).map((json) => JSON.parse(json) as EventRow);
	}

	async appendMessage(session: string, message: unknown, label?: LabelRow): Promise<void> {
		this.live();
		const json = toJson(message, "message");
		const labelJson = label === undefined ? null : labelToJson(STORE_RULES.labels, label, `a message of session ${session}`);
		append(this.messages, session, [json, labelJson]);
	}

	async listMessages(session: string): Promise<StoredMessage[]> {
		this.live();
		return (this.messages.get(session) ?? []).map(([json, labelJson], i) => {
			const stored: StoredMessage = { session, seq: i + 1, message: JSON.parse(json) };
			if (labelJson !== null) stored.label = labelFromJson(STORE_RULES.labels, labelJson, `message ${i + 1} of session ${session}`);
			return stored;
		});
	}

	async appendAudit(input: AuditRowInput): Promise<AuditRow> {
		this.live();
		return this.chain(input, auditData(input)).row;
	}

	/** Every write here is done when its promise settles: there is nothing to wait for. */
	async barrier(): Promise<void> {
		this.live();
	}

	/** The one place records are chained; appendAudit and settleOperation both come here. */
	private chain(input: AuditRowInput, { data, dataJson }: AuditData): { stored: StoredAudit; row: AuditRow } {
		const last = this.audit.at(-1)?.record;
		const record: Omit<AuditRow, "data"> = {
			seq: (last?.seq ?? 0) + 1,
			time: this.now().toISOString(),
			session: input.session,
			turn: input.turn,
			kind: input.kind,
			...(input.call_id === undefined || input.call_id === null ? {} : { call_id: input.call_id }),
			prev_hash: last?.hash ?? STORE_RULES.chain.genesis,
			hash: "",
		};
		const { seq, time, session, turn, kind, call_id } = record;
		record.hash = STORE_RULES.chain.link(record.prev_hash, { seq, time, session, turn, kind, ...(call_id === undefined ? {} : { call_id }), data: dataJson }).hash;
		const stored = { record, dataJson };
		this.audit.push(stored);
		// The parsed data was made for this record alone, so the caller's copy is it, as the SQLite store returns it.
		return { stored, row: { ...record, data } };
	}

	async listAudit(filter: { session?: string; limit?: number } = {}): Promise<AuditRow[]> {
		this.live();
		return this.auditRows(filter);
	}

	private auditRows(filter: { session?: string; limit?: number } = {}): AuditRow[] {
		const count = checkedLimit(filter.limit);
		const matching = filter.session === undefined ? this.audit : this.audit.filter((a) => a.record.session === filter.session);
		// With a limit, the most recent records, still oldest first.
		const tail = count === Number.POSITIVE_INFINITY ? matching : matching.slice(Math.max(0, matching.length - count));
		return tail.map(readBack);
	}

	async snapshot<T>(read: (view: SnapshotView) => T): Promise<T> {
		this.live();
		// Nothing interleaves with a synchronous read of maps in one process: the view is already one state.
		const view: SnapshotView = {
			listSessions: (limit) => this.sessionRows(limit),
			listEvents: (session) => this.eventRows(session),
			listAudit: (filter) => this.auditRows(filter),
		};
		return read(view);
	}

	async verifyAudit(): Promise<ChainCheck> {
		this.live();
		const verifier = new ChainVerifier();
		for (const stored of this.audit) {
			if (verifier.push(toAuditRecord(readBack(stored)))) break;
		}
		const head = this.audit.at(-1)?.record;
		return verifier.finish(head ? { seq: head.seq, hash: head.hash } : { seq: 0, hash: STORE_RULES.chain.genesis });
	}

	async addApprovedRule(rule: NewApprovedRuleRow): Promise<ApprovedRuleRow> {
		this.live();
		const existing = this.approvedRules.find(
			(r) => r.revoked_at === undefined && r.tool === rule.tool && r.pattern === rule.pattern && r.outcome === rule.outcome && r.workspace === rule.workspace,
		);
		if (existing) return { ...existing };
		const stored: ApprovedRuleRow = {
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

	async listApprovedRules(filter: { workspace?: string; includeRevoked?: boolean } = {}): Promise<ApprovedRuleRow[]> {
		this.live();
		return this.approvedRules
			.filter((r) => (filter.workspace === undefined || r.workspace === filter.workspace) && (filter.includeRevoked || r.revoked_at === undefined))
			.map((r) => ({ ...r }));
	}

	async revokeApprovedRule(id: number, revokedAt: string, revokedBy: string): Promise<ApprovedRuleRow> {
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
		const incoming = labelToJson(STORE_RULES.labels, row.label, what);
		const id = fileLabelId(row);
		const existing = this.fileLabels.get(id);
		this.fileLabels.set(id, existing === undefined ? incoming : labelToJson(STORE_RULES.labels, STORE_RULES.labels.join(labelFromJson(STORE_RULES.labels, existing, what), row.label), what));
	}

	async getFileLabel(key: FileLabelKey): Promise<LabelRow | undefined> {
		this.live();
		const json = this.fileLabels.get(fileLabelId(key));
		return json === undefined ? undefined : labelFromJson(STORE_RULES.labels, json, describeFileLabelKey(key));
	}

	async listFileLabels(workspace: string): Promise<(FileLabelKey & { label: LabelRow })[]> {
		this.live();
		const out: (FileLabelKey & { label: LabelRow })[] = [];
		for (const [id, json] of this.fileLabels) {
			const [ws, path, sha256] = JSON.parse(id) as [string, string, string];
			if (ws !== workspace) continue;
			const key = { workspace: ws, path, sha256 };
			out.push({ ...key, label: labelFromJson(STORE_RULES.labels, json, describeFileLabelKey(key)) });
		}
		return out.sort((a, b) => (a.path === b.path ? (a.sha256 < b.sha256 ? -1 : 1) : a.path < b.path ? -1 : 1));
	}

	async prepareOperation(intent: OperationIntentRow, beforeImage?: BlobRow): Promise<void> {
		this.live();
		if (this.operations.has(intent.id)) throw new StoreError(`operation ${intent.id} already exists`);
		if (beforeImage) checkBlobHash(beforeImage.sha256, beforeImage.bytes, `the before-image of operation ${intent.id}`);
		const row: StoredOperation = {
			id: intent.id,
			session: intent.session,
			turn: intent.turn,
			call_id: intent.call_id,
			kind: intent.kind,
			resource: intent.resource,
			intent: JSON.parse(toJson(intent.intent, `intent of operation ${intent.id}`)) as Record<string, unknown>,
			reserved: JSON.parse(toJson(intent.reserved, `reservations of operation ${intent.id}`)) as Record<string, number>,
			...(intent.consumed === undefined ? {} : { consumed: JSON.parse(toJson(intent.consumed, `authority consumed by operation ${intent.id}`)) as object }),
			created_at: intent.created_at,
			state: "prepared",
			updated_at: intent.created_at,
		};
		this.operations.set(intent.id, JSON.stringify(row));
		if (beforeImage && !this.blobs.has(beforeImage.sha256)) this.blobs.set(beforeImage.sha256, Buffer.from(beforeImage.bytes));
	}

	async markOperationDispatched(id: string): Promise<void> {
		this.live();
		const row = this.operation(id);
		if (row?.state !== "prepared") {
			throw new StoreError(`cannot mark operation ${id} dispatched: ${row ? `it is ${row.state}` : "no such operation"}, not prepared`);
		}
		this.operations.set(id, JSON.stringify({ ...row, state: "dispatched", updated_at: this.now().toISOString() }));
	}

	async settleOperation(id: string, settlement: OperationSettlement): Promise<AuditRow | undefined> {
		this.live();
		// Everything that can fail is checked before anything changes, so a refusal leaves no trace (as a rolled-back transaction would).
		this.checkSettlement(id, settlement);
		const outcome = JSON.parse(toJson(settlement.outcome, `outcome of operation ${id}`)) as Record<string, unknown>;
		const data = settlement.audit ? auditData(settlement.audit) : undefined;
		const events = settlement.events ?? [];
		const row = this.operation(id)!;
		const chained = settlement.audit && data !== undefined ? this.chain(settlement.audit, data) : undefined;
		const stored = chained?.stored;
		const settled: StoredOperation = { ...row, state: settlement.state, outcome, updated_at: this.now().toISOString() };
		if (stored) settled.audit_seq = stored.record.seq;
		this.operations.set(id, JSON.stringify(settled));
		for (const event of events) {
			const filled = stored ? fillAuditSeq(event, stored.record.seq) : event;
			append(this.events, filled.session, toJson(filled, `an event settling operation ${id}`));
		}
		return chained?.row;
	}

	async settleOperations(batch: readonly { id: string; settlement: OperationSettlement }[]): Promise<(AuditRow | undefined)[]> {
		this.live();
		// All or none, as one transaction: every settlement is checked against the state it will meet before any is applied.
		const settledTo = new Map<string, string>();
		for (const { id, settlement } of batch) {
			const earlier = settledTo.get(id);
			if (earlier !== undefined) throw new StoreError(`cannot settle operation ${id}: it is already ${earlier}`);
			this.checkSettlement(id, settlement);
			settledTo.set(id, settlement.state);
		}
		const out: (AuditRow | undefined)[] = [];
		for (const { id, settlement } of batch) out.push(await this.settleOperation(id, settlement));
		return out;
	}

	private checkSettlement(id: string, settlement: OperationSettlement): void {
		toJson(settlement.outcome, `outcome of operation ${id}`);
		if (settlement.audit) auditData(settlement.audit);
		const events = settlement.events ?? [];
		if (!settlement.audit && events.some(namesPendingAuditSeq)) {
			throw new StoreError(`settling operation ${id}: an event names the settlement's audit record (audit_seq 0) but none was given`);
		}
		for (const event of events) toJson(event, `an event settling operation ${id}`);
		const row = this.operation(id);
		if (!row) throw new StoreError(`cannot settle operation ${id}: no such operation`);
		if (row.state !== "prepared" && row.state !== "dispatched") throw new StoreError(`cannot settle operation ${id}: it is already ${row.state}`);
		if (settlement.state === "abandoned" && row.state !== "prepared") {
			throw new StoreError(`cannot settle operation ${id} as abandoned: it was dispatched, so it may have happened`);
		}
	}

	/** One process holds the memory: everything pending or running is its own to recover. */
	async adoptOrphans(): Promise<AdoptedWork> {
		this.live();
		const sessions = [...this.sessions.values()].filter((s) => s.status === "active").map((s) => s.id);
		return { holders: [], sessions, operations: await this.listPendingOperations() };
	}

	async claimSession(id: string): Promise<void> {
		const row = this.session(id);
		if (row.status === "active") throw new StoreError(`session ${id} is running in this process`);
		row.status = "active";
		row.ended_at = this.now().toISOString();
	}

	/** No other process shares the memory: a run's commands in flight are the caller's own to know. */
	async sessionHolder(_id: string): Promise<undefined> {
		this.live();
		return undefined;
	}

	async listPendingOperations(): Promise<StoredOperation[]> {
		return this.listOperations({ states: ["prepared", "dispatched"] });
	}

	async listOperations(filter: { session?: string; call_id?: string; states?: readonly OperationRowState[]; limit?: number }): Promise<StoredOperation[]> {
		this.live();
		const count = checkedLimit(filter.limit);
		const rows = [...this.operations.values()]
			.map((json) => JSON.parse(json) as StoredOperation)
			.filter(
				(op) =>
					(filter.session === undefined || op.session === filter.session) &&
					(filter.call_id === undefined || op.call_id === filter.call_id) &&
					(filter.states === undefined || filter.states.includes(op.state)),
			);
		// Oldest first; equal times keep insertion order (the sort is stable), as rowid does.
		rows.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
		return rows.slice(0, count);
	}

	async getBlob(sha256: string): Promise<Buffer | undefined> {
		this.live();
		const bytes = this.blobs.get(sha256);
		return bytes === undefined ? undefined : Buffer.from(bytes);
	}

	async createTaskRun(row: TaskRunRow): Promise<void> {
		this.live();
		if (this.taskRuns.has(row.id)) throw new StoreError(`task run ${row.id} already exists`);
		this.taskRuns.set(row.id, JSON.stringify(row));
	}

	async getTaskRun(id: string): Promise<TaskRunRow | undefined> {
		this.live();
		const json = this.taskRuns.get(id);
		return json === undefined ? undefined : (JSON.parse(json) as TaskRunRow);
	}

	async listTaskRuns(limit?: number): Promise<TaskRunRow[]> {
		this.live();
		const count = checkedLimit(limit);
		// Newest first; among equal times, the later insertion first, as SQLite's rowid order gives.
		const rows = [...this.taskRuns.values()].reverse().map((json) => JSON.parse(json) as TaskRunRow);
		rows.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
		return rows.slice(0, count);
	}

	async updateTaskRun(id: string, change: { state: TaskRunState; attention?: string | null; updated_at: string }): Promise<void> {
		const run = await this.getTaskRun(id);
		if (!run) throw new StoreError(`unknown task run ${id}`);
		run.state = change.state;
		run.updated_at = change.updated_at;
		// attention: a string sets it, null clears it, absent leaves it as it was.
		if (change.attention === null) delete run.attention;
		else if (change.attention !== undefined) run.attention = change.attention;
		this.taskRuns.set(id, JSON.stringify(run));
	}

	async recordRunCommand(row: Omit<RunCommandRow, "state" | "result">): Promise<{ row: RunCommandRow; inserted: boolean }> {
		this.live();
		const key = runCommandId(row.run, row.command_id);
		const existing = this.runCommands.get(key);
		if (existing !== undefined) return { row: JSON.parse(existing) as RunCommandRow, inserted: false };
		const stored: RunCommandRow = {
			run: row.run,
			command_id: row.command_id,
			kind: row.kind,
			...(row.input === undefined ? {} : { input: row.input }),
			state: "accepted",
			created_at: row.created_at,
		};
		this.runCommands.set(key, JSON.stringify(stored));
		return { row: stored, inserted: true };
	}

	async finishRunCommand(run: string, commandId: string, result: Record<string, unknown>): Promise<void> {
		this.live();
		const key = runCommandId(run, commandId);
		const existing = this.runCommands.get(key);
		if (existing === undefined) throw new StoreError(`no command ${commandId} in run ${run}`);
		const command = JSON.parse(existing) as RunCommandRow;
		// A finished command's result is evidence of what it did; a second finish must not replace it.
		if (command.state === "done") throw new StoreError(`command ${commandId} of run ${run} is already done`);
		const json = toJson(result, `result of command ${commandId} of run ${run}`);
		this.runCommands.set(key, JSON.stringify({ ...command, state: "done", result: JSON.parse(json) }));
	}

	async listRunCommands(run: string): Promise<RunCommandRow[]> {
		this.live();
		return [...this.runCommands.values()].map((json) => JSON.parse(json) as RunCommandRow).filter((c) => c.run === run);
	}

	private operation(id: string): StoredOperation | undefined {
		const json = this.operations.get(id);
		return json === undefined ? undefined : (JSON.parse(json) as StoredOperation);
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

/** JSON of the two parts, so no id text can make two keys collide. */
function runCommandId(run: string, commandId: string): string {
	return JSON.stringify([run, commandId]);
}

function append<T>(lists: Map<string, T[]>, session: string, item: T): void {
	const list = lists.get(session);
	if (list) list.push(item);
	else lists.set(session, [item]);
}

interface AuditData {
	/** The data as JSON gives it back. */
	data: Record<string, unknown>;
	/** Its canonical text, as the SQLite store's data column keeps it: what the hash covers. */
	dataJson: string;
}

/**
 * The data's canonical text, and the data read back from it, as a database hands back the column
 * it stored. The canonical text follows JSON.stringify (undefined dropped, toJSON applied), so it
 * is the canonical text of the JSON round trip the SQLite store makes first; written once, not
 * serialized, parsed and serialized again.
 */
function auditData(input: AuditRowInput): AuditData {
	let dataJson: string;
	try {
		dataJson = STORE_RULES.chain.canonicalData(input.data);
	} catch (error) {
		// The refusal the SQLite store gives for what JSON cannot write, in its words.
		toJson(input.data, "audit data");
		throw new StoreError(`audit data is not JSON-serializable (${oneLine(error)})`);
	}
	const data = JSON.parse(dataJson) as unknown;
	if (data === null || typeof data !== "object" || Array.isArray(data)) throw new StoreError("audit data must be a JSON object");
	return { data: data as Record<string, unknown>, dataJson };
}

/** An event whose payload waits for the settlement's audit seq (audit_seq: 0). */
function namesPendingAuditSeq(event: EventRow): boolean {
	return (event.payload as Record<string, unknown>).audit_seq === 0;
}

function fillAuditSeq(event: EventRow, seq: number): EventRow {
	if (!namesPendingAuditSeq(event)) return event;
	return { ...event, payload: { ...event.payload, audit_seq: seq } } as EventRow;
}

function checkBlobHash(sha256: string, bytes: Buffer, what: string): void {
	const actual = createHash("sha256").update(bytes).digest("hex");
	if (actual !== sha256) throw new StoreError(`${what} does not match its hash (sha256 ${sha256.slice(0, 12)}, content ${actual.slice(0, 12)})`);
}

/** A fresh copy each time, so a caller that edits a record cannot edit the chain. */
function readBack({ record, dataJson }: StoredAudit): AuditRow {
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
