/**
 * A cheap wake-up for readers that follow the store across processes: every commit of any process
 * writes the database's WAL file, so a watch on the state dir (which survives the WAL being
 * deleted and made again, as a watch on the file would not) says when to read. A slow poll backs
 * it up where file events are lost (network file systems, a watch that failed to start).
 */
import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";

export interface WakeupOptions {
	/** The fallback poll's period; default 1000 ms. */
	pollMs?: number;
}

/** The waits after a burst's last file event at which readers are woken again, each after the one before. */
const TRAILING_MS = [3, 10, 40, 150];

export class StoreWakeup {
	private readonly listeners = new Set<() => void>();
	private watcher: FSWatcher | undefined;
	private readonly poll: ReturnType<typeof setInterval>;
	private pending = false;
	private trailing: ReturnType<typeof setTimeout> | undefined;

	constructor(walPath: string, options: WakeupOptions = {}) {
		const dbName = basename(walPath).replace(/-wal$/, "");
		try {
			this.watcher = watch(dirname(walPath), (_event, name) => {
				if (name === null || String(name).startsWith(dbName)) this.fileChanged();
			});
			this.watcher.on("error", () => this.stopWatching());
		} catch {
			// No watch on this file system: the poll alone wakes the readers.
			this.watcher = undefined;
		}
		this.poll = setInterval(() => this.wake(), options.pollMs ?? 1000);
		this.poll.unref();
	}

	/** Calls `listener` after writes (coalesced: one call for a burst); returns the unsubscribe. */
	subscribe(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Coalesces a burst of file events into one call of each listener on the next turn of the loop. */
	wake(): void {
		if (this.pending) return;
		this.pending = true;
		setImmediate(() => {
			this.pending = false;
			for (const listener of [...this.listeners]) listener();
		});
	}

	/** A file event: wake now, then again after each of the trailing delays unless another event comes first. */
	private fileChanged(): void {
		this.wake();
		clearTimeout(this.trailing);
		const next = (step: number) => {
			const delay = TRAILING_MS[step];
			if (delay === undefined) return;
			this.trailing = setTimeout(() => {
				this.wake();
				next(step + 1);
			}, delay);
			this.trailing.unref();
		};
		next(0);
	}

	close(): void {
		clearTimeout(this.trailing);
		clearInterval(this.poll);
		this.stopWatching();
		this.listeners.clear();
	}

	private stopWatching(): void {
		this.watcher?.close();
		this.watcher = undefined;
	}
}
