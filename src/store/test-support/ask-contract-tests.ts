/**
 * The Store contract for durable asks: a pending row, answered exactly once, never after it
 * expired. Called from runStoreContractTests, so every backend runs it.
 */
import { describe, expect, it } from "vitest";
import type { NewAskRow } from "../ask-rows.js";
import type { Store } from "../store.js";

const T0 = "2025-06-01T10:00:00.000Z";
const T1 = "2025-06-01T10:00:01.000Z";
const T9 = "2025-06-01T10:09:00.000Z";

function ask(id: string, over: Partial<NewAskRow> = {}): NewAskRow {
	return {
		id,
		session: "s1",
		call_id: `call-${id}`,
		kind: "approval",
		body: { tool: "write_file", resource: "a.txt", arguments: { path: "a.txt", content: "x\n" }, reason: "asked by rule" },
		created_at: T0,
		...over,
	};
}

export function describeAskContract(current: () => Store): void {
	describe("asks", () => {
		it("keeps a pending ask as opened and lists it among the pending, oldest first", () => {
			const asks = current().asks;
			const first = asks.open(ask("a1"));
			asks.open(ask("a2", { created_at: T1, kind: "release", body: { sink: "net:x" } }));
			expect(first).toEqual({ ...ask("a1"), state: "pending" });
			expect(asks.get("a1")).toEqual(first);
			expect(asks.pending(T1).map((r) => [r.id, r.kind])).toEqual([
				["a1", "approval"],
				["a2", "release"],
			]);
			expect(asks.get("nope")).toBeUndefined();
		});

		it("refuses a second ask with the same id", () => {
			const asks = current().asks;
			asks.open(ask("a1"));
			expect(() => asks.open(ask("a1"))).toThrow();
		});

		it("takes one answer, records who gave it, and refuses every later one in one line", () => {
			const asks = current().asks;
			asks.open(ask("a1"));
			const first = asks.answer("a1", "allow_once", "cli", T1);
			expect(first).toMatchObject({ ok: true, row: { state: "answered", answer: "allow_once", answered_by: "cli", answered_at: T1 } });
			const second = asks.answer("a1", "deny", "console", T1);
			expect(second).toMatchObject({ ok: false, error: "ask a1 was already answered (allow_once by cli)" });
			expect(asks.get("a1")).toMatchObject({ answer: "allow_once", answered_by: "cli" });
			expect(asks.pending(T1)).toEqual([]);
		});

		it("refuses an answer to an unknown ask", () => {
			expect(current().asks.answer("ghost", "deny", "cli", T1)).toEqual({ ok: false, error: "unknown ask ghost" });
		});

		it("expires a pending ask once: an answer after it is refused and nothing lands", () => {
			const asks = current().asks;
			asks.open(ask("a1"));
			expect(asks.expire("a1", "turn cancelled", T1)).toMatchObject({ state: "expired", expired_why: "turn cancelled", expired_at: T1 });
			const late = asks.answer("a1", "allow_once", "cli", T1);
			expect(late).toMatchObject({ ok: false, error: "ask a1 has expired (turn cancelled); nothing was released" });
			expect(asks.get("a1")?.answer).toBeUndefined();
			// Expiring again keeps the first reason.
			expect(asks.expire("a1", "later", T9)?.expired_why).toBe("turn cancelled");
		});

		it("leaves an answered ask answered when asked to expire it", () => {
			const asks = current().asks;
			asks.open(ask("a1"));
			asks.answer("a1", "deny", "terminal", T1);
			expect(asks.expire("a1", "no answer in time", T9)).toMatchObject({ state: "answered", answer: "deny" });
		});

		it("past its expiry an ask is no longer pending, and an answer then marks it expired and is refused", () => {
			const asks = current().asks;
			asks.open(ask("a1", { expires_at: T1 }));
			expect(asks.pending(T0).map((r) => r.id)).toEqual(["a1"]);
			expect(asks.pending(T9)).toEqual([]);
			expect(asks.answer("a1", "allow_once", "cli", T9)).toMatchObject({ ok: false, error: expect.stringContaining("has expired (its time ran out") });
			expect(asks.get("a1")?.state).toBe("expired");
		});
	});
}
