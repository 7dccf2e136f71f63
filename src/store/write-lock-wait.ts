/**
 * Waiting for another process's write lock. SQLite's own busy handler sleeps in coarse steps
 * (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 ms, then 100 ms at a time), so a writer that
 * found the lock taken can wake long after it was freed.
 *
 * Whether that matters depends on the cores. Every wake that takes the lock hands it to another
 * process, whose page cache is then stale and read again: measured on two busy cores, a tight
 * schedule (doubling from 0.1 ms to 2 ms) cost 25–45% more CPU per governed call than SQLite's
 * steps and lengthened the holds it waited on, and the CPU is what bounds throughput there. While
 * every core has work waiting for it an oversleep loses nothing, since the core does that work,
 * so SQLite's handler waits (it costs nothing to switch to). While a core is free, the CPU is
 * there to spend and an oversleep is lost time: the handler is off for the BEGIN, and a refusal
 * is tried again after short jittered sleeps (so that waiters do not wake in step). Both wait for
 * the same bound (the handler's timeout is set to it), past which the write is refused in one
 * line. The cores are judged at most once a second.
 */
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";

/** How a refused writer waits. */
export interface WriteLockWait {
	/** The whole wait, first attempt to giving up, in either mode. */
	boundMs: number;
	/** While a core is free, the n-th sleep is steps[n] (the last repeats), jittered to between half and all of it. */
	steps: readonly number[];
}

export const WRITE_LOCK_WAIT: WriteLockWait = { boundMs: 10_000, steps: [0.1, 0.2, 0.4, 0.8, 1.6, 2] };

/** A synchronous sleep: the store's transactions are synchronous, and nothing else of this thread may run inside one. */
export function sleepMs(ms: number): void {
	Atomics.wait(PAUSE, 0, 0, ms);
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** The n-th sleep (0-based) while a core is free. */
export function backoffMs(n: number, wait: WriteLockWait): number {
	const step = wait.steps[Math.min(n, wait.steps.length - 1)] ?? 1;
	return step * (0.5 + Math.random() / 2);
}

/** Runnable tasks now: the numerator of /proc/loadavg's fourth field ("6/162"); undefined if unreadable. */
export function runnableTasks(procLoadavg: string): number | undefined {
	const field = procLoadavg.trim().split(/\s+/)[3];
	const runnable = Number(field?.split("/")[0]);
	return field?.includes("/") && Number.isInteger(runnable) && runnable >= 0 ? runnable : undefined;
}

/**
 * Whether more tasks are runnable than there are cores (the asker, running, among them), now or
 * over the last minute: a process asleep on the lock is not runnable, so the instant count alone
 * misses a burst of writers that keeps the cores busy between their sleeps.
 */
export function coresSaturated(
	cores = availableParallelism(),
	read: () => string = () => readFileSync("/proc/loadavg", "utf8"),
	lastMinute: () => number = () => loadavg()[0] ?? 0,
): boolean {
	let runnable: number | undefined;
	try {
		runnable = runnableTasks(read());
	} catch {
		runnable = undefined;
	}
	return Math.max(runnable ?? 0, lastMinute()) > cores;
}

/** coresSaturated's verdict, asked again once it is older than maxAgeMs. */
export class CoreSaturation {
	private verdict = false;
	private at = Number.NEGATIVE_INFINITY;

	constructor(
		private readonly judge: () => boolean = () => coresSaturated(),
		private readonly now: () => number = () => performance.now(),
		private readonly maxAgeMs = 1_000,
	) {}

	saturated(): boolean {
		const t = this.now();
		if (t - this.at >= this.maxAgeMs) {
			this.verdict = this.judge();
			this.at = t;
		}
		return this.verdict;
	}
}

/** Whether an error is SQLite saying another connection holds the lock (any SQLITE_BUSY* code). */
export function isBusy(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * Runs `attempt` until it returns or throws something other than busy; a busy refusal is tried
 * again after a short sleep while the bound (counted from the first attempt) allows, and past it
 * `refuse` makes the error thrown. `retryable` vetoes a retry (a refusal inside an open
 * transaction cannot simply be run again).
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
	const started = now();
	for (let n = 0; ; n++) {
		try {
			return attempt();
		} catch (error) {
			if (!isBusy(error) || !hooks.retryable()) throw error;
			hooks.onBusy?.();
			const left = hooks.wait.boundMs - (now() - started);
			if (left <= 0) throw hooks.refuse(error);
			sleep(Math.min(left, backoffMs(n, hooks.wait)));
		}
	}
}
