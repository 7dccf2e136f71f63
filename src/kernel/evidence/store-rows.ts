/**
 * The store's rows as the kernel's domain types, and the one way the kernel opens the embedded
 * store (with its rules). The store returns what the kernel gave it; these are the only places its
 * text columns are read back as the kernel's unions (an audit kind, an event kind, an operation kind).
 */
import { SqliteStore, type SqliteStoreOptions } from "../../store/sqlite-store.js";
import type { AuditRow, EventRow, LabelRow, StoredOperation } from "../../store/store.js";
import type { Label } from "../flow/label.js";
import type { ConsumedAuthority, OperationRow } from "../operations/operation-types.js";
import type { AuditRecord } from "./audit-types.js";
import type { AnyWardenEvent } from "./event-types.js";
import { STORE_RULES, asLabel } from "./store-rules.js";

/** Opens (creating if needed) the state dir's SQLite store with the kernel's rules. */
export function openSqliteStore(stateDir: string, options: Omit<SqliteStoreOptions, "rules"> = {}): SqliteStore {
	return SqliteStore.open(stateDir, { ...options, rules: STORE_RULES });
}

export function toAuditRecord(row: AuditRow): AuditRecord {
	return row as AuditRecord;
}

export function toAuditRecords(rows: readonly AuditRow[]): AuditRecord[] {
	return rows.map(toAuditRecord);
}

export function toWardenEvent(row: EventRow): AnyWardenEvent {
	return row as AnyWardenEvent;
}

export function toWardenEvents(rows: readonly EventRow[]): AnyWardenEvent[] {
	return rows.map(toWardenEvent);
}

/** An operation row with its kind and consumed authority as the kernel reads them; recovery checks a row's kind before acting on it. */
export function toOperationRow(row: StoredOperation): OperationRow {
	return row as OperationRow;
}

export function toOperationRows(rows: readonly StoredOperation[]): OperationRow[] {
	return rows.map(toOperationRow);
}

/** The one-use authority an operation row recorded, if any. */
export function consumedOf(row: StoredOperation): ConsumedAuthority | undefined {
	return row.consumed as ConsumedAuthority | undefined;
}

/** A stored label as the kernel's Label (the store checked its shape with the kernel's rules). */
export function toLabel(row: LabelRow): Label;
export function toLabel(row: LabelRow | undefined): Label | undefined;
export function toLabel(row: LabelRow | undefined): Label | undefined {
	return row === undefined ? undefined : asLabel(row);
}
