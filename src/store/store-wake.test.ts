import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.js";
import { stateDirWake } from "./store-wake.js";
import { tempStores } from "./test-support/temp-stores.js";
import { TEST_RULES } from "./test-support/test-rules.js";

const { tempDir, track } = tempStores("warden-wake-");

/** Long enough that only the watcher, not the fallback poll, can end the wait before the test's own limit. */
const NEVER_MS = 3_600_000;

describe("the state dir's wake-up", () => {
	it("wakes a waiter when another process commits to the database, without waiting for the slow poll", async () => {
		const dir = tempDir();
		const waiter = track(SqliteStore.open(dir, { rules: TEST_RULES }));
		const writer = track(SqliteStore.open(dir, { rules: TEST_RULES }));
		const wake = stateDirWake(dir, NEVER_MS);
		try {
			const woken = wake.next(new AbortController().signal).then(() => "woken");
			writer.asks.open({ id: "a1", session: "s1", call_id: "c1", kind: "approval", body: {}, created_at: "2025-06-01T10:00:00.000Z" });
			expect(await woken).toBe("woken");
			expect(waiter.asks.get("a1")?.state).toBe("pending");
		} finally {
			wake.close();
		}
	});

	it("ends a wait at once when its signal aborts, and when the wake is closed", async () => {
		const wake = stateDirWake(tempDir(), NEVER_MS);
		const controller = new AbortController();
		const waiting = wake.next(controller.signal);
		controller.abort();
		await expect(waiting).resolves.toBeUndefined();
		const second = wake.next(new AbortController().signal);
		wake.close();
		await expect(second).resolves.toBeUndefined();
		await expect(wake.next(AbortSignal.abort())).resolves.toBeUndefined();
	});

	it("falls back to the slow poll where the state dir cannot be watched", async () => {
		const wake = stateDirWake(join(tempDir(), "absent"), 10);
		await expect(wake.next(new AbortController().signal)).resolves.toBeUndefined();
		wake.close();
	});
});
