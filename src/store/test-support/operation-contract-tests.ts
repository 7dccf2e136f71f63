/**
 * The Store contract for protected operations, before-image blobs, task runs and their commands,
 * and labels on messages. Called from runStoreContractTests, so every backend runs it.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { EventRow, LabelRow, OperationIntentRow, Store } from "../store.js";

function sha256(bytes: Buffer): string {
	return createHash("sha256").update(bytes).digest("hex");
}

function intent(id: string, over: Partial<OperationIntentRow> = {}): OperationIntentRow {
	return {
		id,
		session: "s1",
		turn: 1,
		call_id: "c1",
		kind: "fs.write",
		resource: "fs:a.txt",
		intent: { path: "a.txt", sha256_before: null, sha256_after: "f".repeat(64) },
		reserved: { tool_calls: 1, bytes_written: 12 },
		created_at: "2025-03-01T10:00:00.000Z",
		...over,
	};
}

/** The effect event a settlement carries, naming its audit record with the placeholder 0. */
function effectEvent(callId: string, auditSeq = 0): EventRow {
	return {
		kind: "effect.recorded",
		session: "s1",
		turn: 1,
		time: "2025-03-01T10:00:05.000Z",
		payload: { call_id: callId, effect: "fs.write", resource: "fs:a.txt", audit_seq: auditSeq },
	};
}

const effectAudit = (callId: string) => ({ session: "s1", turn: 1, kind: "effect" as const, call_id: callId, data: { resource: "fs:a.txt", bytes: 12 } });

export function describeOperationContract(current: () => Store): void {
	describe("protected operations", () => {
		it("prepares, dispatches and settles with a chained audit record and events that name it", async () => {
			const store = current();
			const earlier = await store.appendAudit({ session: "s1", turn: 0, kind: "session.started", data: {} });
			await store.prepareOperation(intent("op_1"));
			const [prepared] = await store.listOperations({ session: "s1" });
			expect(prepared).toEqual({ ...intent("op_1"), state: "prepared", updated_at: "2025-03-01T10:00:00.000Z" });
			expect(prepared).not.toHaveProperty("outcome");
			expect(prepared).not.toHaveProperty("audit_seq");

			await store.markOperationDispatched("op_1");
			expect((await store.listOperations({}))[0]?.state).toBe("dispatched");

			const record = await store.settleOperation("op_1", {
				state: "committed",
				outcome: { bytes: 12, sha256_after: "f".repeat(64) },
				audit: effectAudit("c1"),
				events: [effectEvent("c1"), { ...effectEvent("c1", 7), turn: 2 }],
			});
			expect(record?.seq).toBe(2);
			expect(record?.prev_hash).toBe(earlier.hash);
			expect(record?.call_id).toBe("c1");
			expect(await store.listAudit()).toEqual([earlier, record]);
			expect(await store.verifyAudit()).toEqual({ ok: true, checked: 2 });

			const [settled] = await store.listOperations({ session: "s1" });
			expect(settled).toMatchObject({ id: "op_1", state: "committed", outcome: { bytes: 12, sha256_after: "f".repeat(64) }, audit_seq: 2 });
			expect(Number.isNaN(Date.parse(settled?.updated_at ?? ""))).toBe(false);
			// The placeholder is filled with the record's seq; a real seq is left alone.
			const events = await store.listEvents("s1");
			expect(events.map((e) => (e.payload as { audit_seq: number }).audit_seq)).toEqual([2, 7]);
		});

		it("settles a batch in order, each with its chained record and events, and none of it when one settlement is refused", async () => {
			const store = current();
			for (const id of ["op_1", "op_2", "op_3"]) await store.prepareOperation(intent(id, { call_id: `c_${id}` }));
			await store.markOperationDispatched("op_2");
			await store.markOperationDispatched("op_3");
			const before = await store.listOperations({});
			// op_2 was dispatched: abandoning it would claim it never started, so the whole batch is refused.
			await expect(
				store.settleOperations([
					{ id: "op_1", settlement: { state: "abandoned", outcome: {}, audit: { session: "s1", turn: 1, kind: "operation.abandoned", data: { operation: "op_1" } } } },
					{ id: "op_2", settlement: { state: "abandoned", outcome: {} } },
				]),
			).rejects.toThrow(/cannot settle operation op_2 as abandoned/);
			expect(await store.listOperations({})).toEqual(before);
			expect(await store.listAudit()).toEqual([]);

			const records = await store.settleOperations([
				{ id: "op_1", settlement: { state: "abandoned", outcome: { recovered: true }, audit: { session: "s1", turn: 1, kind: "operation.abandoned", data: { operation: "op_1" } } } },
				{ id: "op_2", settlement: { state: "unknown", outcome: { recovered: true } } },
				{ id: "op_3", settlement: { state: "committed", outcome: {}, audit: effectAudit("c_op_3"), events: [effectEvent("c_op_3")] } },
			]);
			expect(records.map((r) => r?.seq)).toEqual([1, undefined, 2]);
			expect(records[2]?.prev_hash).toBe(records[0]?.hash);
			expect((await store.listOperations({})).map((op) => [op.id, op.state, op.audit_seq])).toEqual([
				["op_1", "abandoned", 1],
				["op_2", "unknown", undefined],
				["op_3", "committed", 2],
			]);
			expect((await store.listEvents("s1")).map((e) => (e.payload as { audit_seq: number }).audit_seq)).toEqual([2]);
			expect(await store.verifyAudit()).toEqual({ ok: true, checked: 2 });
			await expect(store.settleOperations([{ id: "op_3", settlement: { state: "failed", outcome: {} } }])).rejects.toThrow(/op_3: it is already committed/);
			expect(await store.settleOperations([])).toEqual([]);
		});

		it("writes that arrive together each resolve durable and in one chain, and a refused one fails alone", async () => {
			const store = current();
			await store.prepareOperation(intent("op_1"));
			// Fired at once, as concurrent sessions do: the one refused write must not take the others with it.
			const results = await Promise.allSettled([
				store.appendAudit({ session: "s1", turn: 1, kind: "permission.decided", data: { n: 1 } }),
				store.markOperationDispatched("op_missing"),
				store.markOperationDispatched("op_1"),
				store.appendEvent(effectEvent("c1", 5)),
				store.appendAudit({ session: "s2", turn: 1, kind: "permission.decided", data: { n: 2 } }),
			]);
			expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled", "fulfilled"]);
			expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/cannot mark operation op_missing dispatched: no such operation/);
			const audit = await store.listAudit();
			expect(audit.map((r) => [r.seq, r.session])).toEqual([
				[1, "s1"],
				[2, "s2"],
			]);
			expect(audit).toEqual([(results[0] as PromiseFulfilledResult<unknown>).value, (results[4] as PromiseFulfilledResult<unknown>).value]);
			expect((await store.listOperations({}))[0]?.state).toBe("dispatched");
			expect(await store.listEvents("s1")).toEqual([effectEvent("c1", 5)]);
			expect(await store.verifyAudit()).toEqual({ ok: true, checked: 2 });
		});

		it("settles without an audit record, and settles a prepared operation as abandoned", async () => {
			const store = current();
			await store.prepareOperation(intent("op_1"));
			expect(await store.settleOperation("op_1", { state: "abandoned", outcome: { reason: "refused on revalidation" } })).toBeUndefined();
			const [row] = await store.listOperations({});
			expect(row).toMatchObject({ state: "abandoned", outcome: { reason: "refused on revalidation" } });
			expect(row).not.toHaveProperty("audit_seq");
			expect(await store.listAudit()).toEqual([]);
		});

		it("keeps the authority an intent consumed through every settlement, and none for an intent that consumed none", async () => {
			const store = current();
			const consumed = { lease: "lease_1", grants: [{ holder: "session:s1", grant: "once" }, { holder: "session:p", grant: "parent" }] };
			const settlements = [
				["op_c", "committed"],
				["op_f", "failed"],
				["op_u", "unknown"],
				["op_a", "abandoned"],
			] as const;
			for (const [id, state] of settlements) {
				await store.prepareOperation(intent(id, { consumed }));
				if (state !== "abandoned") await store.markOperationDispatched(id);
				await store.settleOperation(id, { state, outcome: {} });
			}
			await store.prepareOperation(intent("op_none"));
			const rows = await store.listOperations({});
			expect(rows.map((op) => [op.id, op.state, op.consumed])).toEqual([
				...settlements.map(([id, state]) => [id, state, consumed]),
				["op_none", "prepared", undefined],
			]);
			expect((await store.listPendingOperations())[0]).not.toHaveProperty("consumed");
		});

		it("refuses an intent whose consumed authority is not JSON, and keeps no row for it", async () => {
			const store = current();
			const cyclic: Record<string, unknown> = {};
			cyclic.self = cyclic;
			await expect(store.prepareOperation(intent("op_1", { consumed: cyclic as never }))).rejects.toThrow(/authority consumed by operation op_1 is not JSON-serializable/);
			expect(await store.listOperations({})).toEqual([]);
		});

		it("refuses to settle a settled operation, and changes nothing when it does", async () => {
			const store = current();
			await store.prepareOperation(intent("op_1"));
			await store.markOperationDispatched("op_1");
			await store.settleOperation("op_1", { state: "unknown", outcome: { error: "crashed" }, audit: effectAudit("c1"), events: [effectEvent("c1")] });
			const before = await store.listOperations({});
			await expect(
				store.settleOperation("op_1", { state: "committed", outcome: { bytes: 1 }, audit: effectAudit("c1"), events: [effectEvent("c1")] }),
			).rejects.toThrow("cannot settle operation op_1: it is already unknown");
			expect(await store.listOperations({})).toEqual(before);
			expect(await store.listAudit()).toHaveLength(1);
			expect(await store.listEvents("s1")).toHaveLength(1);
			await expect(store.settleOperation("op_ghost", { state: "failed", outcome: {} })).rejects.toThrow("op_ghost: no such operation");
		});

		it("refuses to call a dispatched operation abandoned: it may have happened", async () => {
			const store = current();
			await store.prepareOperation(intent("op_1"));
			await store.markOperationDispatched("op_1");
			await expect(store.settleOperation("op_1", { state: "abandoned", outcome: {} })).rejects.toThrow(/op_1 as abandoned: it was dispatched/);
			expect((await store.listOperations({}))[0]?.state).toBe("dispatched");
		});

		it("refuses an event waiting for an audit seq when the settlement has no audit record", async () => {
			const store = current();
			await store.prepareOperation(intent("op_1"));
			await expect(store.settleOperation("op_1", { state: "failed", outcome: {}, events: [effectEvent("c1")] })).rejects.toThrow(/audit_seq 0/);
			expect((await store.listOperations({}))[0]?.state).toBe("prepared");
			expect(await store.listEvents("s1")).toEqual([]);
		});

		it("marks dispatched only from prepared", async () => {
			const store = current();
			await store.prepareOperation(intent("op_1"));
			await store.markOperationDispatched("op_1");
			await expect(store.markOperationDispatched("op_1")).rejects.toThrow("cannot mark operation op_1 dispatched: it is dispatched, not prepared");
			await store.settleOperation("op_1", { state: "committed", outcome: {} });
			await expect(store.markOperationDispatched("op_1")).rejects.toThrow("it is committed, not prepared");
			await expect(store.markOperationDispatched("op_ghost")).rejects.toThrow("op_ghost dispatched: no such operation");
			expect((await store.listOperations({}))[0]?.state).toBe("committed");
		});

		it("refuses a second intent with the same id", async () => {
			const store = current();
			await store.prepareOperation(intent("op_1"));
			await expect(store.prepareOperation(intent("op_1", { turn: 2 }))).rejects.toThrow("operation op_1 already exists");
			expect((await store.listOperations({})).map((op) => op.turn)).toEqual([1]);
		});

		it("lists only prepared and dispatched operations as pending, oldest first", async () => {
			const store = current();
			await store.prepareOperation(intent("op_late", { created_at: "2025-03-01T10:00:09.000Z" }));
			await store.prepareOperation(intent("op_done", { created_at: "2025-03-01T10:00:01.000Z" }));
			await store.prepareOperation(intent("op_early", { created_at: "2025-03-01T10:00:02.000Z" }));
			await store.prepareOperation(intent("op_tie", { created_at: "2025-03-01T10:00:02.000Z" }));
			await store.prepareOperation(intent("op_gone", { created_at: "2025-03-01T10:00:00.000Z" }));
			await store.markOperationDispatched("op_early");
			await store.markOperationDispatched("op_done");
			await store.settleOperation("op_done", { state: "committed", outcome: {} });
			await store.settleOperation("op_gone", { state: "abandoned", outcome: {} });
			const pending = await store.listPendingOperations();
			expect(pending.map((op) => [op.id, op.state])).toEqual([
				["op_early", "dispatched"],
				["op_tie", "prepared"],
				["op_late", "prepared"],
			]);
			expect(pending[0]?.intent).toEqual(intent("x").intent);
		});

		it("filters operations by session, call and state, with a limit, oldest first", async () => {
			const store = current();
			await store.prepareOperation(intent("op_a", { call_id: "c1", created_at: "2025-03-01T10:00:01.000Z" }));
			await store.prepareOperation(intent("op_b", { call_id: "c2", created_at: "2025-03-01T10:00:02.000Z" }));
			await store.prepareOperation(intent("op_c", { call_id: "c2", created_at: "2025-03-01T10:00:03.000Z" }));
			await store.prepareOperation(intent("op_d", { session: "s2", call_id: "c2", created_at: "2025-03-01T10:00:00.000Z" }));
			await store.settleOperation("op_b", { state: "failed", outcome: { error: "disk full" } });
			const ids = async (filter: Parameters<Store["listOperations"]>[0]) => (await store.listOperations(filter)).map((op) => op.id);
			expect(await ids({})).toEqual(["op_d", "op_a", "op_b", "op_c"]);
			expect(await ids({ session: "s1" })).toEqual(["op_a", "op_b", "op_c"]);
			expect(await ids({ session: "s1", call_id: "c2" })).toEqual(["op_b", "op_c"]);
			expect(await ids({ call_id: "c2" })).toEqual(["op_d", "op_b", "op_c"]);
			expect(await ids({ states: ["failed"] })).toEqual(["op_b"]);
			expect(await ids({ session: "s1", states: ["prepared", "committed"] })).toEqual(["op_a", "op_c"]);
			expect(await ids({ states: [] })).toEqual([]);
			expect(await ids({ session: "s1", limit: 2 })).toEqual(["op_a", "op_b"]);
			expect(await ids({ session: "nobody" })).toEqual([]);
		});
	});

	describe("before-image blobs", () => {
		it("keeps a before-image once per hash and reads it back byte for byte", async () => {
			const store = current();
			const bytes = Buffer.from([0x00, 0xff, 0x0a, 0x0d, 0x80, ...Buffer.from("héllo\n")]);
			const hash = sha256(bytes);
			expect(await store.getBlob(hash)).toBeUndefined();
			await store.prepareOperation(intent("op_1"), { sha256: hash, bytes });
			await store.prepareOperation(intent("op_2", { call_id: "c2" }), { sha256: hash, bytes: Buffer.from(bytes) });
			const back = await store.getBlob(hash);
			expect(back?.equals(bytes)).toBe(true);
			// What a caller does with the returned buffer does not reach the stored copy.
			back?.fill(0);
			expect((await store.getBlob(hash))?.equals(bytes)).toBe(true);
			const empty = Buffer.alloc(0);
			await store.prepareOperation(intent("op_3"), { sha256: sha256(empty), bytes: empty });
			expect((await store.getBlob(sha256(empty)))?.length).toBe(0);
		});

		it("refuses a before-image whose bytes do not match its hash, and keeps no intent for it", async () => {
			const store = current();
			await expect(store.prepareOperation(intent("op_1"), { sha256: "0".repeat(64), bytes: Buffer.from("x") })).rejects.toThrow(
				/before-image of operation op_1 does not match its hash/,
			);
			expect(await store.listOperations({})).toEqual([]);
			expect(await store.getBlob("0".repeat(64))).toBeUndefined();
		});
	});

	describe("task runs", () => {
		const run = (id: string, createdAt: string) => ({
			id,
			session: `sess_${id}`,
			state: "running" as const,
			created_at: createdAt,
			updated_at: createdAt,
		});

		it("creates, reads, lists newest first and refuses a duplicate id", async () => {
			const store = current();
			await store.createTaskRun(run("r_old", "2025-03-01T10:00:00.000Z"));
			await store.createTaskRun({ ...run("r_new", "2025-03-03T10:00:00.000Z"), state: "needs_attention", attention: "effect op_1 is unknown" });
			await store.createTaskRun(run("r_mid", "2025-03-02T10:00:00.000Z"));
			expect(await store.getTaskRun("r_old")).toEqual(run("r_old", "2025-03-01T10:00:00.000Z"));
			expect(await store.getTaskRun("r_new")).toMatchObject({ state: "needs_attention", attention: "effect op_1 is unknown" });
			expect(await store.getTaskRun("r_ghost")).toBeUndefined();
			expect((await store.listTaskRuns()).map((r) => r.id)).toEqual(["r_new", "r_mid", "r_old"]);
			expect((await store.listTaskRuns(1)).map((r) => r.id)).toEqual(["r_new"]);
			await expect(store.createTaskRun(run("r_old", "2025-03-04T10:00:00.000Z"))).rejects.toThrow("task run r_old already exists");
		});

		it("updates the state, sets, keeps and clears the attention line, and refuses an unknown run", async () => {
			const store = current();
			await store.createTaskRun(run("r1", "2025-03-01T10:00:00.000Z"));
			await store.updateTaskRun("r1", { state: "needs_attention", attention: "effect op_9 is unknown", updated_at: "2025-03-01T10:01:00.000Z" });
			expect(await store.getTaskRun("r1")).toEqual({
				...run("r1", "2025-03-01T10:00:00.000Z"),
				state: "needs_attention",
				attention: "effect op_9 is unknown",
				updated_at: "2025-03-01T10:01:00.000Z",
			});
			await store.updateTaskRun("r1", { state: "needs_attention", updated_at: "2025-03-01T10:02:00.000Z" });
			expect((await store.getTaskRun("r1"))?.attention).toBe("effect op_9 is unknown");
			await store.updateTaskRun("r1", { state: "completed", attention: null, updated_at: "2025-03-01T10:03:00.000Z" });
			const done = await store.getTaskRun("r1");
			expect(done?.state).toBe("completed");
			expect(done).not.toHaveProperty("attention");
			await expect(store.updateTaskRun("r_ghost", { state: "failed", updated_at: "2025-03-01T10:04:00.000Z" })).rejects.toThrow("unknown task run r_ghost");
		});

		it("records a command once: a retry with the same id gets the first row back", async () => {
			const store = current();
			const first = await store.recordRunCommand({ run: "r1", command_id: "cmd-1", kind: "start", input: "fix the tests", created_at: "2025-03-01T10:00:00.000Z" });
			expect(first).toEqual({
				inserted: true,
				row: { run: "r1", command_id: "cmd-1", kind: "start", input: "fix the tests", state: "accepted", created_at: "2025-03-01T10:00:00.000Z" },
			});
			const retry = await store.recordRunCommand({ run: "r1", command_id: "cmd-1", kind: "start", input: "something else", created_at: "2025-03-01T10:05:00.000Z" });
			expect(retry).toEqual({ inserted: false, row: first.row });
			// The same client id in another run is another command.
			expect((await store.recordRunCommand({ run: "r2", command_id: "cmd-1", kind: "start", created_at: "2025-03-01T10:06:00.000Z" })).inserted).toBe(true);
			const cancel = await store.recordRunCommand({ run: "r1", command_id: "cmd-2", kind: "cancel", created_at: "2025-03-01T09:00:00.000Z" });
			expect(cancel.inserted).toBe(true);
			expect(cancel.row).not.toHaveProperty("input");
			expect((await store.listRunCommands("r1")).map((c) => c.command_id)).toEqual(["cmd-1", "cmd-2"]);
			expect(await store.listRunCommands("r_none")).toEqual([]);
		});

		it("finishes a command with its result once, and a retry then sees it done", async () => {
			const store = current();
			await store.recordRunCommand({ run: "r1", command_id: "cmd-1", kind: "follow-up", input: "and the docs", created_at: "2025-03-01T10:00:00.000Z" });
			await store.finishRunCommand("r1", "cmd-1", { status: "completed", turn: 3 });
			const [done] = await store.listRunCommands("r1");
			expect(done).toEqual({
				run: "r1",
				command_id: "cmd-1",
				kind: "follow-up",
				input: "and the docs",
				state: "done",
				result: { status: "completed", turn: 3 },
				created_at: "2025-03-01T10:00:00.000Z",
			});
			const retry = await store.recordRunCommand({ run: "r1", command_id: "cmd-1", kind: "follow-up", input: "and the docs", created_at: "2025-03-01T10:09:00.000Z" });
			expect(retry).toEqual({ inserted: false, row: done });
			await expect(store.finishRunCommand("r1", "cmd-1", { status: "failed" })).rejects.toThrow("command cmd-1 of run r1 is already done");
			await expect(store.finishRunCommand("r1", "cmd-ghost", {})).rejects.toThrow("no command cmd-ghost in run r1");
			expect((await store.listRunCommands("r1"))[0]?.result).toEqual({ status: "completed", turn: 3 });
		});
	});

	describe("message labels", () => {
		it("round-trips a message's label, and a message stored without one has none", async () => {
			const store = current();
			const label: LabelRow = { sensitivity: "secret", integrity: "untrusted", sources: [{ kind: "file", ref: ".env", sha256: "e".repeat(64) }], omitted: 2 };
			await store.appendMessage("s1", { role: "user", content: "hi" });
			await store.appendMessage("s1", { role: "tool", tool_call_id: "c1", content: "[secret]" }, label);
			const [plain, labelled] = await store.listMessages("s1");
			expect(plain).toEqual({ session: "s1", seq: 1, message: { role: "user", content: "hi" } });
			expect(plain).not.toHaveProperty("label");
			expect(labelled).toEqual({ session: "s1", seq: 2, message: { role: "tool", tool_call_id: "c1", content: "[secret]" }, label });
		});

		it("refuses a malformed label and stores nothing", async () => {
			const store = current();
			const bad = { sensitivity: "public", integrity: "trusted" } as unknown as LabelRow;
			await expect(store.appendMessage("s1", { role: "user", content: "x" }, bad)).rejects.toThrow(/a message of session s1: refusing a malformed label/);
			expect(await store.listMessages("s1")).toEqual([]);
		});
	});
}
