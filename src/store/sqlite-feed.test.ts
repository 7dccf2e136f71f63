import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteFeed } from "./sqlite-feed.js";
import { SqliteStore } from "./sqlite-store.js";
import { TEST_RULES } from "./test-support/test-rules.js";

let dir: string;
let store: SqliteStore;
let feed: SqliteFeed;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "warden-feed-"));
	store = SqliteStore.open(dir, { rules: TEST_RULES });
	feed = SqliteFeed.open(dir);
});

afterEach(async () => {
	feed.close();
	await store.close();
	rmSync(dir, { recursive: true, force: true });
});

const event = (session: string, kind: string, payload: object = {}) => ({ session, kind, turn: 1, time: new Date().toISOString(), payload });

describe("the store feed", () => {
	it("reads every event of every session once, in append order, across pages", async () => {
		for (let i = 0; i < 25; i++) await store.appendEvent(event(i % 3 === 0 ? "s-a" : "s-b", "tool.proposed", { i }));
		const seen: number[] = [];
		let cursor = 0;
		for (;;) {
			const batch = feed.eventsAfter(cursor, 7);
			seen.push(...batch.rows.map((r) => (r.event as { payload: { i: number } }).payload.i));
			cursor = batch.cursor;
			if (!batch.more) break;
		}
		expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i));
		expect(feed.eventsAfter(cursor, 7)).toEqual({ rows: [], cursor, more: false });
		await store.appendEvent(event("s-a", "turn.completed"));
		expect(feed.eventsAfter(cursor, 7).rows.map((r) => r.kind)).toEqual(["turn.completed"]);
	});

	it("filters by session, kind and decision, and moves the cursor past the rows it skipped", async () => {
		await store.appendEvent(event("s-a", "permission.decided", { decision: "deny" }));
		await store.appendEvent(event("s-b", "permission.decided", { decision: "allow" }));
		await store.appendEvent(event("s-a", "tool.proposed", { decision: "deny" }));
		const denied = feed.eventsAfter(0, 100, { decision: "deny" });
		expect(denied.rows.map((r) => [r.session, r.kind])).toEqual([["s-a", "permission.decided"]]);
		expect(denied.cursor).toBe(feed.lastEventId());
		expect(feed.eventsAfter(0, 100, { session: "s-b" }).rows.map((r) => r.seq)).toEqual([1]);
		expect(feed.eventsAfter(0, 100, { kind: "tool.proposed" }).rows).toHaveLength(1);
	});

	it("starts a backlog the given number of events before the newest", async () => {
		for (let i = 0; i < 10; i++) await store.appendEvent(event("s", "tool.proposed"));
		expect(feed.eventsAfter(feed.tailStart(4), 100).rows).toHaveLength(4);
		expect(feed.tailStart(100)).toBe(0);
	});

	it("pages audit records newest first by seq, of one session when asked", async () => {
		for (let i = 0; i < 9; i++) await store.appendAudit({ session: i < 3 ? "s-a" : "s-b", turn: 1, kind: "tool.proposed", data: { i } });
		expect(feed.auditPage({ limit: 4 }).map((r) => r.seq)).toEqual([9, 8, 7, 6]);
		expect(feed.auditPage({ limit: 4, before: 6 }).map((r) => r.seq)).toEqual([5, 4, 3, 2]);
		expect(feed.auditPage({ limit: 10, session: "s-a" }).map((r) => r.data)).toEqual([{ i: 2 }, { i: 1 }, { i: 0 }]);
	});
});
