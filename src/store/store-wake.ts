/**
 * A cheap wake-up for whoever waits on a row another process may change: every commit to the
 * state dir's database touches its WAL file, so one fs.watch on the state dir wakes every waiter,
 * who then does one keyed read. A slow poll stands in where watching is not possible (a store in
 * memory, a file system without notifications) and catches a wake-up the watcher missed.
 */
import { type FSWatcher, watch } from "node:fs";
import { DB_FILE } from "./sqlite-open.js";

export interface StoreWake {
	/** Resolves at the next change to the database, after `fallbackMs` at the latest, or when `signal` aborts. */
	next(signal: AbortSignal): Promise<void>;
	close(): void;
}

/** The slow poll's period: a missed notification costs at most this long. */
export const FALLBACK_POLL_MS = 1_000;


export function stateDirWake(stateDir: string | undefined, fallbackMs = FALLBACK_POLL_MS): StoreWake {
	const waiters = new Set<() => void>();
	let watcher: FSWatcher | undefined;
	let unwatchable = stateDir === undefined;
	const wakeAll = () => {
		for (const wake of [...waiters]) wake();
	};
	const ensureWatching = () => {
		if (watcher || unwatchable || stateDir === undefined) return;
		try {
			watcher = watch(stateDir, { persistent: false }, (_event, file) => {
				if (file === null || String(file).startsWith(DB_FILE)) wakeAll();
			});
			watcher.on("error", () => {
				watcher?.close();
				watcher = undefined;
				unwatchable = true;
			});
		} catch {
			unwatchable = true;
		}
	};
	const stopWhenIdle = () => {
		if (waiters.size > 0 || !watcher) return;
		watcher.close();
		watcher = undefined;
	};
	return {
		next(signal) {
			if (signal.aborted) return Promise.resolve();
			ensureWatching();
			return new Promise<void>((resolve) => {
				const done = () => {
					clearTimeout(timer);
					signal.removeEventListener("abort", done);
					waiters.delete(done);
					stopWhenIdle();
					resolve();
				};
				const timer = setTimeout(done, fallbackMs);
				signal.addEventListener("abort", done, { once: true });
				waiters.add(done);
			});
		},
		close() {
			wakeAll();
			watcher?.close();
			watcher = undefined;
		},
	};
}
