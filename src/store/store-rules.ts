/**
 * What a store needs from the kernel inside its own transactions, handed to it at open as data and
 * functions, so the store never imports the kernel: how one audit row links onto the previous one
 * (the chain must be extended inside the write transaction that reads its head, or concurrent
 * appenders could fork it), how the stored chain is checked, and what a stored label is and how two
 * join (a second label on the same content is joined with the first in one transaction).
 */
import type { ChainCheck, LabelRow } from "./store.js";

/** An audit row's hashed columns, `data` as the canonical text the store keeps. */
export interface CanonicalAuditColumns {
	seq: number;
	time: string;
	session: string;
	turn: number;
	kind: string;
	call_id?: string;
	data: string;
}

/** The values of an audit row in the order a walker is handed them (sqlite-audit-table.ts lineColumns decodes a stored line into this order). */
export const AUDIT_COLUMNS = ["seq", "time", "session", "turn", "kind", "call_id", "data", "prev_hash", "hash"] as const;

/**
 * How far a row whose stored line did not hash may still pass: `never` for a line this store wrote
 * itself (its bytes are what was hashed, so a difference is an edit); `columns` for a line spelled
 * from an older table's columns (SQLite's JSON quoting may differ from the kernel's, so the body the
 * values spell decides); `decoded` for a record written before data was kept canonical (its decoded
 * contents decide).
 */
export type StoredRowTrust = "never" | "columns" | "decoded";

/** Walks stored rows in chain order and names the first bad one. */
export interface ChainWalker {
	/**
	 * Checks the next row from its values in AUDIT_COLUMNS order, as decoded from its stored line
	 * (types unchecked), after pushHashed returned false for it; or the reason it has no such values.
	 * Returns the problem once one is found.
	 */
	push(row: readonly unknown[] | { seq: number; unreadable: string }, trust: StoredRowTrust): { seq: number; reason: string } | undefined;
	/**
	 * The fast path: the next row's stored line, `<seq> <hash> <prev_hash>\n<canonical body>` (hash
	 * and prev_hash 64 characters each; the text after the second space is exactly what the hash
	 * covers), or anything else where the store has none. Undefined when the row passed, the problem
	 * when it (or an earlier one) is bad, false when the line does not check: nothing is decided,
	 * and push with the decoded row follows.
	 */
	pushHashed(line: unknown): { seq: number; reason: string } | undefined | false;
	/** Ends the walk; with the store's remembered head, also catches rows removed from the end. */
	finish(head: { seq: number; hash: string }): ChainCheck;
}

export interface AuditChainRules {
	/** The prev_hash of the first row. */
	genesis: string;
	/** The canonical text a row's data is kept as (the bytes its hash covers). */
	canonicalData(data: Record<string, unknown>): string;
	/** A row linked onto `prevHash`: its canonical body (the bytes the store keeps) and its hash. */
	link(prevHash: string, row: CanonicalAuditColumns): { body: string; hash: string };
	walker(): ChainWalker;
}

export interface LabelRules {
	/** Why a value is not a label the kernel can read back, or undefined when it is one. */
	problem(value: unknown): string | undefined;
	/** The label kept when a second one is recorded on the same content. */
	join(a: LabelRow, b: LabelRow): LabelRow;
}

export interface StoreRules {
	chain: AuditChainRules;
	labels: LabelRules;
}
