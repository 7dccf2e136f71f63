import { describe, expect, it } from "vitest";
import type { NewAskRow } from "./ask-rows.js";
import { SqliteStore } from "./sqlite-store.js";
import { tempStores } from "./test-support/temp-stores.js";
import { TEST_RULES } from "./test-support/test-rules.js";

const { tempDir, track } = tempStores("warden-asks-");

function open(dir: string, pid: number, alive: Set<number>): SqliteStore {
	return track(
		SqliteStore.open(dir, { rules: TEST_RULES, leaseOptions: { pid, pidStart: `start-${pid}`, hostname: "h", isAlive: (p) => alive.has(p), startTime: (p) => `start-${p}` } }),
	);
}

const AT = "2025-06-01T10:00:00.000Z";
const ask = (id: string): NewAskRow => ({ id, session: "s1", call_id: `c-${id}`, kind: "approval", body: { tool: "write_file" }, created_at: AT });

describe("asks over one state dir, tied to the asker's process lease", () => {
	it("another process answers a live asker's ask, and the asker reads the answer back", () => {
		const dir = tempDir();
		const alive = new Set([1, 2]);
		const asker = open(dir, 1, alive);
		const answerer = open(dir, 2, alive);
		asker.asks.open(ask("a1"));
		expect(answerer.asks.pending(AT).map((r) => r.id)).toEqual(["a1"]);
		expect(answerer.asks.answer("a1", "allow_once", "cli", AT)).toMatchObject({ ok: true });
		expect(asker.asks.get("a1")).toMatchObject({ state: "answered", answer: "allow_once", answered_by: "cli" });
	});

	it("an asker that died is no one's to answer: its ask is not pending, and an answer expires it and is refused", () => {
		const dir = tempDir();
		const alive = new Set([1, 2]);
		const asker = open(dir, 1, alive);
		const answerer = open(dir, 2, alive);
		asker.asks.open(ask("a1"));
		alive.delete(1);
		expect(answerer.asks.pending(AT)).toEqual([]);
		const refused = answerer.asks.answer("a1", "allow_once", "cli", AT);
		expect(refused).toMatchObject({ ok: false, error: "ask a1 has expired (the process that asked is gone (the process is gone)); nothing was released" });
		expect(answerer.asks.get("a1")).toMatchObject({ state: "expired" });
		expect(answerer.asks.get("a1")?.answer).toBeUndefined();
	});

	it("an asker that closed cleanly leaves no lease: its ask cannot be answered either", async () => {
		const dir = tempDir();
		const alive = new Set([1, 2]);
		const asker = open(dir, 1, alive);
		asker.asks.open(ask("a1"));
		await asker.close();
		const answerer = open(dir, 2, alive);
		expect(answerer.asks.answer("a1", "deny", "cli", AT)).toMatchObject({ ok: false, error: expect.stringContaining("has expired (the process that asked is gone") });
	});

	it("recovery expires every pending ask of a gone holder and leaves a live one's pending", async () => {
		const dir = tempDir();
		const alive = new Set([1, 2, 3]);
		const live = open(dir, 1, alive);
		const doomed = open(dir, 2, alive);
		live.asks.open(ask("kept"));
		doomed.asks.open(ask("lost"));
		alive.delete(2);
		await open(dir, 3, alive).adoptOrphans();
		expect(live.asks.get("kept")?.state).toBe("pending");
		expect(live.asks.get("lost")).toMatchObject({ state: "expired", expired_why: "the process that asked is gone" });
	});

	it("a reader can list asks but not open or answer one", async () => {
		const dir = tempDir();
		open(dir, 1, new Set([1])).asks.open(ask("a1"));
		const reader = track(SqliteStore.open(dir, { readOnly: true, rules: TEST_RULES }));
		expect(reader.asks.get("a1")?.state).toBe("pending");
		expect(() => reader.asks.answer("a1", "deny", "cli", AT)).toThrow(/read-only|read only/);
	});

	describe("an elicitation ask: its answer carries content, once", () => {
		const elicitation = (id: string): NewAskRow => ({
			id,
			session: "s1",
			call_id: `elicitation_${id}`,
			kind: "elicitation",
			body: { tool: "elicitation", resource: "mcp:notes", elicitation: { server: "notes", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } } },
			created_at: AT,
		});

		it("another process accepts with content; the asker reads it back, and a second answer is refused", () => {
			const dir = tempDir();
			const alive = new Set([1, 2, 3]);
			const asker = open(dir, 1, alive);
			asker.asks.open(elicitation("e1"));
			expect(asker.asks.get("e1")?.body).toMatchObject({ elicitation: { server: "notes" } });
			expect(open(dir, 2, alive).asks.answer("e1", "accept", "console", AT, { name: "Ada" })).toMatchObject({ ok: true, row: { answer: "accept", answered_by: "console" } });
			expect(open(dir, 3, alive).asks.answer("e1", "decline", "cli", AT)).toMatchObject({ ok: false, error: "ask e1 was already answered (accept by console)" });
			expect(asker.asks.get("e1")).toMatchObject({ state: "answered", answer: "accept", answered_by: "console", answer_content: { name: "Ada" } });
		});

		it("the asker drops the content once it took it: the row keeps who answered, not what was typed", () => {
			const dir = tempDir();
			const alive = new Set([1, 2]);
			const asker = open(dir, 1, alive);
			asker.asks.open(elicitation("e1"));
			open(dir, 2, alive).asks.answer("e1", "accept", "console", AT, { name: "Ada" });
			asker.asks.forgetContent("e1");
			const row = asker.asks.get("e1");
			expect(row).toMatchObject({ state: "answered", answer: "accept", answered_by: "console" });
			expect(row?.answer_content).toBeUndefined();
		});

		it("content for a gone asker is refused and never stored", () => {
			const dir = tempDir();
			const alive = new Set([1, 2]);
			const asker = open(dir, 1, alive);
			asker.asks.open(elicitation("e1"));
			alive.delete(1);
			const answerer = open(dir, 2, alive);
			expect(answerer.asks.answer("e1", "accept", "console", AT, { name: "Ada" })).toMatchObject({ ok: false, error: expect.stringContaining("has expired (the process that asked is gone") });
			expect(answerer.asks.get("e1")?.answer_content).toBeUndefined();
		});

		it("a decline carries no content", () => {
			const dir = tempDir();
			const alive = new Set([1, 2]);
			open(dir, 1, alive).asks.open(elicitation("e1"));
			const answerer = open(dir, 2, alive);
			expect(answerer.asks.answer("e1", "decline", "cli", AT)).toMatchObject({ ok: true });
			expect(answerer.asks.get("e1")).toMatchObject({ state: "answered", answer: "decline" });
			expect(answerer.asks.get("e1")?.answer_content).toBeUndefined();
		});
	});
});
