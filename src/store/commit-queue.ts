/**
 * Group commit: writes that arrive together (concurrent sessions of one process, one call's
 * writes fired at once) are committed in one transaction, so one fsync makes all of them durable.
 * A write is queued, the queue is flushed on the next turn of the event loop (after the I/O that
 * woke other sessions has run, so they join), and each caller is resolved only after the
 * transaction holding its write has committed. Each write runs in its own savepoint: one refused
 * write (a StoreError, say) is rolled back alone and rejects only its own caller.
 *
 * A deferred write asks for no commit of its own: it waits in the queue, in order, and commits
 * with the next write that does ask, at the next barrier, or after DEFER_DEADLINE_MS if neither
 * comes. So one call's writes, queued one after another across its awaits, commit together at
 * the point where the call needs them durable.
 */

interface Queued {
	body: () => unknown;
	/** The one table the write touches, when the caller says so (undefined: it may touch any). */
	table?: string;
	resolve: (value: unknown) => void;
	reject: (error: unknown) => void;
}

interface Waiter {
	resolve: () => void;
	reject: (error: unknown) => void;
}

/** What a flush reports per batch (how many writes it held), for the benchmark's figures. */
export type BatchObserver = (size: number) => void;

/**
 * How long a deferred write may wait for a barrier before it is committed anyway: the bound on
 * how late a host hears an event of a call that is still running, and on what a crash in a long
 * read-only call can take with it.
 */
export const DEFER_DEADLINE_MS = 50;

export class CommitQueue {
	private pending: Queued[] = [];
	private waiters: Waiter[] = [];
	private scheduled: ReturnType<typeof setImmediate> | undefined;
	private deadline: ReturnType<typeof setTimeout> | undefined;

	/**
	 * `commit` runs the batch inside one write transaction, and `isolate` runs one write inside
	 * that transaction so that a throw undoes only that write.
	 */
	constructor(
		private readonly commit: (batch: () => void) => void,
		private readonly isolate: <T>(body: () => T) => T,
		private readonly observe?: BatchObserver,
	) {}

	/** Resolves with what `body` returned once its batch is durable; rejects with what it threw, or with the commit's error. */
	enqueue<T>(body: () => T, table?: string): Promise<T> {
		const promise = this.push(body, table);
		this.scheduled ??= setImmediate(() => this.flush());
		return promise;
	}

	/** Like enqueue, but asks for no commit: the write commits with the next one that does (see the class comment). */
	defer<T>(body: () => T, table?: string): Promise<T> {
		const promise = this.push(body, table);
		this.deadline ??= setTimeout(() => this.flush(), DEFER_DEADLINE_MS);
		return promise;
	}

	/**
	 * Resolves once every write queued before it is durable, committed on the next turn of the
	 * event loop so that other sessions' writes join the same transaction; rejects with the
	 * commit's error. A write refused on its own is reported to its own caller, not here.
	 */
	barrier(): Promise<void> {
		if (this.pending.length === 0) return Promise.resolve();
		return new Promise<void>((resolve, reject) => {
			this.waiters.push({ resolve, reject });
			this.scheduled ??= setImmediate(() => this.flush());
		});
	}

	/**
	 * Commits what is waiting and `body` after it, in one transaction, now; returns what `body`
	 * returned or throws what it threw. For writes that must be done before their caller goes on
	 * (synchronous ones): they still commit after every write queued before them.
	 */
	runNow<T>(body: () => T): T {
		let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
		this.pending.push({
			body,
			resolve: (value) => {
				outcome = { ok: true, value: value as T };
			},
			reject: (error) => {
				outcome = { ok: false, error };
			},
		});
		this.flush();
		if (!outcome) throw new Error("a write run now was left out of its batch");
		if (!outcome.ok) throw outcome.error;
		return outcome.value;
	}

	/** Commits what is waiting now (close calls it, so nothing queued is lost). */
	flush(): void {
		if (this.scheduled) clearImmediate(this.scheduled);
		if (this.deadline) clearTimeout(this.deadline);
		this.scheduled = undefined;
		this.deadline = undefined;
		const batch = this.pending;
		const waiters = this.waiters;
		this.waiters = [];
		if (batch.length === 0) {
			for (const waiter of waiters) waiter.resolve();
			return;
		}
		this.pending = [];
		let outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
		try {
			this.commit(() => {
				// A retried transaction runs the batch again from the start.
				outcomes = [];
				for (const item of batch) {
					try {
						outcomes.push({ ok: true, value: this.isolate(item.body) });
					} catch (error) {
						outcomes.push({ ok: false, error });
					}
				}
			});
		} catch (error) {
			// Nothing in the batch committed: every caller hears why.
			for (const item of batch) item.reject(error);
			for (const waiter of waiters) waiter.reject(error);
			return;
		}
		this.observe?.(batch.length);
		batch.forEach((item, i) => {
			const outcome = outcomes[i]!;
			if (outcome.ok) item.resolve(outcome.value);
			else item.reject(outcome.error);
		});
		// After the writes' callers, so a barrier's caller goes on once they have heard.
		for (const waiter of waiters) waiter.resolve();
	}

	/** How many writes wait for a commit. */
	get size(): number {
		return this.pending.length;
	}

	/** Whether a write waiting for a commit may touch `table` (so a read of it must commit first). */
	holds(table: string): boolean {
		return this.pending.some((item) => item.table === undefined || item.table === table);
	}

	private push<T>(body: () => T, table: string | undefined): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			const item: Queued = { body, resolve: resolve as (value: unknown) => void, reject };
			if (table !== undefined) item.table = table;
			this.pending.push(item);
		});
	}
}
