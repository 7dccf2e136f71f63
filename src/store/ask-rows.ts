/**
 * Rows of the `asks` table: a pending approval, exact-release or elicitation request kept durably, so a surface
 * in another process can answer what this one raised. The store keeps rows and enforces that one
 * answer lands, once, on a live asker's pending row; what an answer means is decided above it.
 */

export type AskRowState = "pending" | "answered" | "expired";

export interface AskRow {
	id: string;
	session: string;
	call_id: string;
	/** `approval`, `release` or `elicitation`, as text. */
	kind: string;
	/** What any surface shows (tool, resource, arguments, reason, diff, rule, release), as JSON. */
	body: Record<string, unknown>;
	/** ISO times. */
	created_at: string;
	expires_at?: string;
	state: AskRowState;
	answer?: string;
	answered_by?: string;
	answered_at?: string;
	/** What an answer carries beyond its word (an elicitation's fields); cleared once the asker took it. */
	answer_content?: Record<string, unknown>;
	expired_at?: string;
	/** Why nobody's answer can land any more: a timeout, a cancelled turn, a gone process. */
	expired_why?: string;
}

export type NewAskRow = Pick<AskRow, "id" | "session" | "call_id" | "kind" | "body" | "created_at"> & { expires_at?: string };

/** An answer that landed (the row as answered), or why it did not (the row as it now stands). */
export type AskClaim = { ok: true; row: AskRow } | { ok: false; error: string; row?: AskRow };

/**
 * Synchronous: each call is one short write transaction (or one keyed read), so a waiter can check
 * its row on every wake-up without queueing behind the session's grouped writes.
 */
export interface AskStore {
	/** Records a pending ask, owned by this process (its lease): when the process is gone, so is the ask. */
	open(row: NewAskRow): AskRow;
	get(id: string): AskRow | undefined;
	/** Asks still waiting at `at` (pending, before their expiry, their asker live), oldest first. */
	pending(at: string): AskRow[];
	/**
	 * pending → answered, exactly once: only while the row is pending, before its expiry, and its
	 * asker is live. Otherwise refused in one line; an ask found past its time or orphaned is marked
	 * expired on the way.
	 */
	answer(id: string, answer: string, by: string, at: string, content?: Record<string, unknown>): AskClaim;
	/** Drops an answered row's content: the asker has it, and what a person typed is kept no longer than needed. */
	forgetContent(id: string): void;
	/** pending → expired; a row already answered or expired is left as it is. Returns the row as it now stands. */
	expire(id: string, why: string, at: string): AskRow | undefined;
}

/** The one line an answer to a row that is not pending gets. */
export function notPendingError(row: AskRow): string {
	if (row.state === "answered") return `ask ${row.id} was already answered (${row.answer} by ${row.answered_by})`;
	return `ask ${row.id} has expired (${row.expired_why ?? "no reason recorded"}); nothing was released`;
}

/** The same contract kept in memory (the benchmarks' store): its one process is always live. */
export class MemoryAsks implements AskStore {
	private readonly rows = new Map<string, AskRow>();

	open(row: NewAskRow): AskRow {
		if (this.rows.has(row.id)) throw new Error(`ask ${row.id} already exists`);
		const stored: AskRow = { ...structuredClone(row), state: "pending" };
		this.rows.set(row.id, stored);
		return structuredClone(stored);
	}

	get(id: string): AskRow | undefined {
		const row = this.rows.get(id);
		return row && structuredClone(row);
	}

	pending(at: string): AskRow[] {
		return [...this.rows.values()].filter((r) => r.state === "pending" && !pastExpiry(r, at)).map((r) => structuredClone(r));
	}

	answer(id: string, answer: string, by: string, at: string, content?: Record<string, unknown>): AskClaim {
		const row = this.rows.get(id);
		if (!row) return { ok: false, error: `unknown ask ${id}` };
		if (row.state === "pending" && pastExpiry(row, at)) this.expire(id, "its time ran out before an answer came", at);
		if (row.state !== "pending") return { ok: false, error: notPendingError(row), row: structuredClone(row) };
		Object.assign(row, { state: "answered", answer, answered_by: by, answered_at: at }, content === undefined ? {} : { answer_content: structuredClone(content) });
		return { ok: true, row: structuredClone(row) };
	}

	forgetContent(id: string): void {
		const row = this.rows.get(id);
		if (row) delete row.answer_content;
	}

	expire(id: string, why: string, at: string): AskRow | undefined {
		const row = this.rows.get(id);
		if (row?.state === "pending") Object.assign(row, { state: "expired", expired_at: at, expired_why: why });
		return row && structuredClone(row);
	}
}

/** ISO times of one clock compare as text. */
export function pastExpiry(row: Pick<AskRow, "expires_at">, at: string): boolean {
	return row.expires_at !== undefined && row.expires_at <= at;
}
