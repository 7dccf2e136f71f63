import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import { SqliteFeed } from "../../store/sqlite-feed.js";
import type { SqliteStore } from "../../store/sqlite-store.js";
import { StoreWakeup } from "./store-wakeup.js";

let dir: string;
let store: SqliteStore;
let feed: SqliteFeed;
let wakeup: StoreWakeup;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "warden-wakeup-"));
	store = openSqliteStore(dir);
	feed = SqliteFeed.open(dir);
	// A poll that never comes within the test: only the file watch can wake the reader.
	wakeup = new StoreWakeup(feed.walPath, { pollMs: 3_600_000 });
});

afterEach(async () => {
	wakeup.close();
	feed.close();
	await store.close();
	rmSync(dir, { recursive: true, force: true });
});

/** Resolves with the newest event id once a wake-up finds it at `id` or past it. */
function wokenAt(id: number): Promise<number> {
	return new Promise((resolve) => {
		const stop = wakeup.subscribe(() => {
			const seen = feed.lastEventId();
			if (seen >= id) {
				stop();
				resolve(seen);
			}
		});
	});
}

describe("the store wake-up", () => {
	it("wakes a reader for the last commit of a burst, though nothing writes after it", async () => {
		const woken = wokenAt(3);
		for (let i = 0; i < 3; i++) await store.appendEvent({ kind: "tool.proposed", session: "s", turn: 1, time: new Date().toISOString(), payload: {} });
		expect(await woken).toBe(3);
	});

	it("calls each listener once for a burst of wake-ups, and no more after it unsubscribes", async () => {
		let calls = 0;
		const stop = wakeup.subscribe(() => {
			calls++;
		});
		wakeup.wake();
		wakeup.wake();
		await new Promise((resolve) => setImmediate(resolve));
		expect(calls).toBe(1);
		stop();
		wakeup.wake();
		await new Promise((resolve) => setImmediate(resolve));
		expect(calls).toBe(1);
	});
});
