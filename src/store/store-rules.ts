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

/** The columns of a stored audit row, raw as the database returns them, in this order. */
export const AUDIT_COLUMNS = ["seq", "time", "session", "turn", "kind", "call_id", "data", "prev_hash", "hash"] as const;

/** Walks stored rows in chain order and names the first bad one. */
export interface ChainWalker {
	/**
	 * Checks the next row, its values in AUDIT_COLUMNS order exactly as stored (types unchecked).
	 * `dataMayBeLegacy`: the row was written before its data column was canonical, so it may pass
	 * from its decoded contents. Returns the problem once one is found.
	 */
	push(row: readonly unknown[], dataMayBeLegacy: boolean): { seq: number; reason: string } | undefined;
	/**
	 * The fast path: the next row as one line the store spelled from its own columns,
	 * `<seq> <hash> <prev_hash>\n<canonical body>` (hash and prev_hash 64 characters each; the text
	 * after the second space is exactly what the hash covers), or null where it could not.
	 * Undefined when the row passed, the problem when it (or an earlier one) is bad, false when the
	 * line does not check: nothing is decided, and push with the raw row follows.
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
	/** The hash of a row linked onto `prevHash`. */
	link(prevHash: string, row: CanonicalAuditColumns): string;
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
