/**
 * Protected operations: an effect outside any database transaction is wrapped in durable states so
 * a crash can never make it run twice or pretend it never happened.
 *
 *   prepared ──(revalidated, marked durable)──► dispatched ──► committed | failed | unknown
 *      └──(refused or cancelled before dispatch: certified not started)──► abandoned
 *
 * `prepared` means nothing was handed to a provider. `dispatched` is written before the provider is
 * called, so after a crash it means "may have happened": recovery never dispatches it again, and
 * only a reconciliation hook that can observe the outcome (a file's content hash) settles it;
 * otherwise it stays `unknown`.
 */

export type OperationKind = "fs.write" | "fs.delete" | "shell.exec" | "net.fetch" | "mcp.call";

export type OperationState = "prepared" | "dispatched" | "committed" | "failed" | "unknown" | "abandoned";

/** The terminal states a settlement may set. */
export type SettledState = "committed" | "failed" | "unknown" | "abandoned";

export interface OperationIntent {
	/** `op_<uuid>`. */
	id: string;
	session: string;
	turn: number;
	call_id: string;
	kind: OperationKind;
	/** Canonical resource (`fs:<rel>`, `shell:<command>`, `net:<origin>`). */
	resource: string;
	/**
	 * What the provider is asked to do, enough to reconcile it later: for fs.write
	 * { path, sha256_before (null when creating), sha256_after }; for fs.delete { path, sha256 };
	 * for shell.exec { command }; for net.fetch { url, method, payload_sha256 }.
	 */
	intent: Record<string, unknown>;
	/** Budget held for it (counter → amount), so recovery can settle what a crash left reserved. */
	reserved: Record<string, number>;
	/**
	 * One-use authority its call spent, durable with the intent: once this row exists the use is
	 * consumed whatever the operation's outcome (committed, failed, unknown, abandoned), so a crash
	 * and a reopen can never hand it out again.
	 */
	consumed?: ConsumedAuthority;
	/** ISO time. */
	created_at: string;
}

/** One use of a counted grant: the grant's id and holder (`session:<id>`), one entry per counter spent along its delegation chain. */
export interface GrantUse {
	holder: string;
	grant: string;
}

export interface ConsumedAuthority {
	/** The approval lease the call redeemed. */
	lease?: string;
	/** Counted-grant uses the call's admissions spent since its previous intent. */
	grants?: GrantUse[];
}

export interface OperationRow extends OperationIntent {
	state: OperationState;
	/** How it settled: exit status, bytes, error, `reconciled_by`… */
	outcome?: Record<string, unknown>;
	/** The audit record that settled it (the effect record, or the abandonment/recovery record). */
	audit_seq?: number;
	updated_at: string;
}

/** A file's content kept before the agent changed or removed it, by content hash (for undo and reconciliation). */
export interface BeforeImage {
	sha256: string;
	bytes: Buffer;
}
