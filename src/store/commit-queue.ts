/**
 * Group commit: writes that arrive together (concurrent sessions of one process, one call's
 * writes fired at once) are committed in one transaction, so one fsync makes all of them durable.
 * A write is queued, the queue is flushed on the next turn of the event loop (after the I/O that
 * woke other sessions has run, so they join), and each caller is resolved only after the
 * transaction holding its write has committed. Each write runs in its own savepoint: one refused
 * write (a StoreError, say) is rolled back alone and rejects only its own caller.
 */

interface Queued {
	body: () => unknown;
	resolve: (value: unknown) => void;
	reject: (error: unknown) => void;
}

/** What a flush reports per batch (how many writes it held), for the benchmark's figures. */
export type BatchObserver = (size: number) => void;

export class CommitQueue {
	private pending: Queued[] = [];
	private scheduled: ReturnType<typeof setImmediate> | undefined;

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
	enqueue<T>(body: () => T): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			this.pending.push({ body, resolve: resolve as (value: unknown) => void, reject });
			this.scheduled ??= setImmediate(() => this.flush());
		});
	}

	/** Commits what is waiting now (close calls it, so nothing queued is lost). */
	flush(): void {
		if (this.scheduled) clearImmediate(this.scheduled);
		this.scheduled = undefined;
		const batch = this.pending;
		if (batch.length === 0) return;
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
			return;
		}
		this.observe?.(batch.length);
		batch.forEach((item, i) => {
			const outcome = outcomes[i]!;
			if (outcome.ok) item.resolve(outcome.value);
			else item.reject(outcome.error);
		});
	}

	get size(): number {
		return this.pending.length;
	}
}
