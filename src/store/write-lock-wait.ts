/**
 * Waiting for another process's write lock. SQLite's own busy handler sleeps in coarse steps
 * (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 ms, then 100 ms at a time), so a writer that
 * found the lock taken wakes long after it was freed: with eight processes on one state dir its
 * p99 wait was 80 ms where the lock is held well under a millisecond. A refused BEGIN IMMEDIATE is
 * instead tried again after short sleeps that start at a tenth of a millisecond and double up to
 * two, with jitter so that waiters do not wake in step, until a total bound; then it is refused.
 */

/** How a refused writer waits. */
export interface WriteLockWait {
	/** The whole wait, first refusal to giving up. */
	boundMs: number;
	/** The first sleep; each next one doubles, up to maxSleepMs. */
	firstSleepMs: number;
	maxSleepMs: number;
}

export const WRITE_LOCK_WAIT: WriteLockWait = { boundMs: 10_000, firstSleepMs: 0.1, maxSleepMs: 2 };

/** A synchronous sleep: the store's transactions are synchronous, and nothing else of this thread may run inside one. */
export function sleepMs(ms: number): void {
	Atomics.wait(PAUSE, 0, 0, ms);
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** The n-th sleep (0-based): doubling from the first up to the cap, then between half and all of it at random. */
export function backoffMs(n: number, wait: WriteLockWait): number {
	const ceiling = Math.min(wait.maxSleepMs, wait.firstSleepMs * 2 ** Math.min(n, 30));
	return ceiling * (0.5 + Math.random() / 2);
}

/** Whether an error is SQLite saying another connection holds the lock (any SQLITE_BUSY* code). */
export function isBusy(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * Runs `attempt` until it returns or throws something other than busy; a busy refusal is tried
 * again after a backoff sleep while the bound allows, and past it `refuse` makes the error thrown.
 * `retryable` vetoes a retry (a refusal inside an open transaction cannot simply be run again).
 */
export function retryWhileBusy<T>(
	attempt: () => T,
	hooks: {
		wait: WriteLockWait;
		retryable: () => boolean;
		onBusy?: () => void;
		refuse: (error: unknown) => Error;
		/** The clock and the sleep; tests pin them. */
		now?: () => number;
		sleep?: (ms: number) => void;
	},
): T {
	const now = hooks.now ?? (() => performance.now());
	const sleep = hooks.sleep ?? sleepMs;
	let firstRefusal: number | undefined;
	for (let n = 0; ; n++) {
		try {
			return attempt();
		} catch (error) {
			if (!isBusy(error) || !hooks.retryable()) throw error;
			hooks.onBusy?.();
			const at = now();
			firstRefusal ??= at;
			const left = hooks.wait.boundMs - (at - firstRefusal);
			if (left <= 0) throw hooks.refuse(error);
			sleep(Math.min(left, backoffMs(n, hooks.wait)));
		}
	}
}
