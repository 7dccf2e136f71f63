import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SqliteStore } from "../../store/sqlite-store.js";
import { openSqliteStore } from "../evidence/store-rows.js";
import type { OperationIntent, OperationKind } from "./operation-types.js";
import { recoverOperations } from "./recovery.js";

const SESSION = "s1";
const NOW = new Date("2025-06-01T12:00:00.000Z");

function sha256(text: string): string {
	return createHash("sha256").update(text).digest("hex");
}

let base: string;
let workspace: string;
let store: SqliteStore;
let counter = 0;

beforeEach(async () => {
	counter = 0;
	base = realpathSync(mkdtempSync(path.join(tmpdir(), "warden-recovery-")));
	workspace = path.join(base, "ws");
	mkdirSync(workspace);
	store = openSqliteStore(path.join(base, "state"));
	await store.createSession({ id: SESSION, workspace, mode: "workspace-write", model: "scripted:test", created_at: "2025-06-01T11:00:00.000Z" });
});

afterEach(async () => {
	await store.close();
	rmSync(base, { recursive: true, force: true });
});

/** Seeds one operation through the store API, left in `state` as a crash would leave it. */
async function seed(kind: OperationKind, state: "prepared" | "dispatched", intent: Record<string, unknown>, reserved: Record<string, number>, over: Partial<OperationIntent> = {}): Promise<string> {
	counter++;
	const id = `op_${String(counter).padStart(4, "0")}`;
	await store.prepareOperation({
		id,
		session: SESSION,
		turn: 1,
		call_id: `call-${counter}`,
		kind,
		resource: kind === "shell.exec" ? `shell:${String(intent?.command)}` : kind === "net.fetch" ? "net:https://api.example.com:443" : `fs:${String(intent?.path)}`,
		intent,
		reserved,
		created_at: `2025-06-01T11:30:${String(counter % 60).padStart(2, "0")}.000Z`,
		...over,
	});
	if (state === "dispatched") await store.markOperationDispatched(id);
	return id;
}

function put(rel: string, content: string): void {
	writeFileSync(path.join(workspace, rel), content);
}

async function operation(id: string) {
	const [op] = (await store.listOperations({ session: SESSION })).filter((o) => o.id === id);
	expect(op).toBeDefined();
	return op!;
}

async function auditRecord(seq: number | undefined) {
	expect(seq).toBeDefined();
	const [record] = (await store.listAudit()).filter((r) => r.seq === seq);
	expect(record).toBeDefined();
	return record!;
}

describe("recoverOperations", () => {
	it("abandons an intent still prepared: it never reached a provider, and what it held is released", async () => {
		const id = await seed("fs.write", "prepared", { path: "a.txt", sha256_before: null, sha256_after: sha256("x") }, { bytes_written: 10 });
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.operations).toEqual([{ id, session: SESSION, call_id: "call-1", kind: "fs.write", resource: "fs:a.txt", state: "abandoned", by: "never dispatched" }]);
		expect(report.released).toEqual({ bytes_written: 10 });
		expect(report.charged).toEqual({});
		const op = await operation(id);
		expect(op.state).toBe("abandoned");
		expect(op.outcome).toEqual({ recovered: true, by: "never dispatched" });
		const record = await auditRecord(op.audit_seq);
		expect(record.kind).toBe("operation.abandoned");
		expect(record.call_id).toBe("call-1");
		expect(record.data).toMatchObject({ operation: id, state: "abandoned", recovered: true, released: { bytes_written: 10 } });
	});

	it("commits a dispatched write whose file holds the intended bytes, giving it an effect record marked as reconciled", async () => {
		put("a.txt", "new\n");
		const intent = { path: "a.txt", sha256_before: sha256("old\n"), sha256_after: sha256("new\n") };
		const id = await seed("fs.write", "dispatched", intent, { bytes_written: 4 });
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.operations.map((o) => [o.id, o.state])).toEqual([[id, "committed"]]);
		expect(report.charged).toEqual({ bytes_written: 4 });
		const op = await operation(id);
		expect(op.state).toBe("committed");
		expect(op.outcome).toMatchObject({ recovered: true, by: expect.stringContaining("content hash") });
		const record = await auditRecord(op.audit_seq);
		expect(record.kind).toBe("effect");
		expect(record.call_id).toBe("call-1");
		expect(record.data).toEqual({
			effect: "fs.write",
			resource: "fs:a.txt",
			...intent,
			operation: id,
			state: "committed",
			reconciled_by: "content hash: the file holds the intended bytes",
		});
	});

	it("fails a dispatched write whose file still holds its old bytes, and releases what it held", async () => {
		put("a.txt", "old\n");
		const id = await seed("fs.write", "dispatched", { path: "a.txt", sha256_before: sha256("old\n"), sha256_after: sha256("new\n") }, { bytes_written: 4 });
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.operations.map((o) => [o.id, o.state])).toEqual([[id, "failed"]]);
		expect(report.released).toEqual({ bytes_written: 4 });
		const op = await operation(id);
		expect(op.state).toBe("failed");
		const record = await auditRecord(op.audit_seq);
		expect(record.kind).toBe("operation.settled");
		expect(record.data).toMatchObject({ operation: id, state: "failed", recovered: true });
	});

	it("fails a dispatched creation whose file never appeared", async () => {
		const id = await seed("fs.write", "dispatched", { path: "fresh.txt", sha256_before: null, sha256_after: sha256("x") }, { bytes_written: 1 });
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.operations.map((o) => [o.id, o.state])).toEqual([[id, "failed"]]);
	});

	it("leaves unknown a dispatched write whose file holds something else, and charges what it held", async () => {
		put("a.txt", "someone else's\n");
		const id = await seed("fs.write", "dispatched", { path: "a.txt", sha256_before: sha256("old\n"), sha256_after: sha256("new\n") }, { bytes_written: 4 });
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.operations).toMatchObject([{ id, state: "unknown", by: "the file holds neither the old nor the intended bytes: changed since" }]);
		expect(report.charged).toEqual({ bytes_written: 4 });
		expect((await operation(id)).state).toBe("unknown");
	});

	it("commits a dispatched delete whose file is gone, and fails one whose file is still there unchanged", async () => {
		const gone = await seed("fs.delete", "dispatched", { path: "gone.txt", type: "file", sha256: sha256("bye\n") }, {});
		put("kept.txt", "stay\n");
		const kept = await seed("fs.delete", "dispatched", { path: "kept.txt", type: "file", sha256: sha256("stay\n") }, {});
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.operations.map((o) => [o.id, o.state, o.by])).toEqual([
			[gone, "committed", "the file is gone"],
			[kept, "failed", "content hash: the file is still there, unchanged"],
		]);
		const record = await auditRecord((await operation(gone)).audit_seq);
		expect(record.kind).toBe("effect");
		expect(record.data).toMatchObject({ effect: "fs.delete", operation: gone, reconciled_by: "the file is gone" });
	});

	it("leaves a dispatched command or request unknown, never dispatching it again, and charges what it held", async () => {
		const shell = await seed("shell.exec", "dispatched", { command: "touch ran.txt" }, { shell_ms: 30_000 });
		const net = await seed("net.fetch", "dispatched", { url: "https://api.example.com/x", method: "POST", payload_sha256: sha256("p") }, { net_requests: 1 });
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.operations.map((o) => [o.id, o.state])).toEqual([
			[shell, "unknown"],
			[net, "unknown"],
		]);
		expect(report.charged).toEqual({ shell_ms: 30_000, net_requests: 1 });
		expect(report.released).toEqual({});
		for (const id of [shell, net]) {
			const record = await auditRecord((await operation(id)).audit_seq);
			expect(record.kind).toBe("operation.settled");
			expect(record.data).toMatchObject({ operation: id, state: "unknown", recovered: true });
		}
		// Nothing was run again: the command's file does not exist.
		expect(() => realpathSync(path.join(workspace, "ran.txt"))).toThrow();
	});

	it("leaves a write unknown when its session (and so its workspace) is not recorded", async () => {
		const id = await seed("fs.write", "dispatched", { path: "a.txt", sha256_before: null, sha256_after: sha256("x") }, {}, { session: "ghost" });
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.operations).toMatchObject([{ id, state: "unknown", by: "the file's workspace or path is not recorded" }]);
	});

	it("marks sessions left active as interrupted, and leaves ended ones alone", async () => {
		await store.createSession({ id: "s2", workspace, mode: "workspace-write", model: "scripted:test", created_at: "2025-06-01T11:10:00.000Z" });
		await store.endSession("s2", "completed", "2025-06-01T11:20:00.000Z");
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.interrupted).toEqual([SESSION]);
		expect(await store.getSession(SESSION)).toMatchObject({ status: "interrupted", ended_at: NOW.toISOString() });
		expect(await store.getSession("s2")).toMatchObject({ status: "completed" });
	});

	it("closes with one recovery.completed record that lists what it settled, released and charged", async () => {
		put("a.txt", "new\n");
		const abandoned = await seed("shell.exec", "prepared", { command: "make" }, { shell_ms: 1_000 });
		const committed = await seed("fs.write", "dispatched", { path: "a.txt", sha256_before: null, sha256_after: sha256("new\n") }, { bytes_written: 4 });
		const unknown = await seed("shell.exec", "dispatched", { command: "make test" }, { shell_ms: 2_000 });
		await recoverOperations(store, { now: () => NOW });
		const audit = await store.listAudit();
		const last = audit[audit.length - 1]!;
		expect(last.kind).toBe("recovery.completed");
		expect(last.session).toBe("host");
		expect(last.data).toEqual({
			operations: [
				{ id: abandoned, call_id: "call-1", kind: "shell.exec", state: "abandoned", by: "never dispatched" },
				{ id: committed, call_id: "call-2", kind: "fs.write", state: "committed", by: "content hash: the file holds the intended bytes" },
				{ id: unknown, call_id: "call-3", kind: "shell.exec", state: "unknown", by: expect.stringContaining("never run again") },
			],
			unknown: 1,
			unreadable: [],
			interrupted: [SESSION],
			released: { shell_ms: 1_000 },
			charged: { bytes_written: 4, shell_ms: 2_000 },
		});
		// One record per settled operation, then the summary; the chain holds.
		expect(audit.map((r) => r.kind)).toEqual(["operation.abandoned", "effect", "operation.settled", "recovery.completed"]);
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 4 });
	});

	it("a second recovery finds nothing to do and appends nothing", async () => {
		await seed("fs.write", "prepared", { path: "a.txt", sha256_before: null, sha256_after: sha256("x") }, { bytes_written: 1 });
		await seed("shell.exec", "dispatched", { command: "ls" }, { shell_ms: 1 });
		await recoverOperations(store, { now: () => NOW });
		const before = await store.listAudit();
		expect(before.length).toBeGreaterThan(0);
		const operationsBefore = await store.listOperations({});

		const again = await recoverOperations(store, { now: () => NOW });
		expect(again).toEqual({ operations: [], unreadable: [], interrupted: [], released: {}, charged: {} });
		const after = await store.listAudit();
		expect(after.length).toBe(before.length);
		expect(after[after.length - 1]!.hash).toBe(before[before.length - 1]!.hash);
		expect(await store.listOperations({})).toEqual(operationsBefore);
		expect(await store.listPendingOperations()).toEqual([]);
	});

	it("a recovery with nothing pending and no active session writes nothing at all", async () => {
		await store.endSession(SESSION, "completed", "2025-06-01T11:40:00.000Z");
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.operations).toEqual([]);
		expect(await store.listAudit()).toEqual([]);
	});

	it("reports a row it cannot understand and leaves it pending, settling the others", async () => {
		const bad = await seed("fs.write", "dispatched", null as unknown as Record<string, unknown>, {});
		const good = await seed("fs.write", "prepared", { path: "a.txt", sha256_before: null, sha256_after: sha256("x") }, {});
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.unreadable).toEqual([bad]);
		expect(report.operations.map((o) => o.id)).toEqual([good]);
		expect((await store.listPendingOperations()).map((o) => [o.id, o.state])).toEqual([[bad, "dispatched"]]);
		const audit = await store.listAudit();
		expect(audit[audit.length - 1]!.data).toMatchObject({ unreadable: [bad] });
	});

	it("treats null reservations and unknown kinds as unreadable, never as a file it can settle", async () => {
		const nullReserved = await seed("shell.exec", "prepared", { command: "ls" }, null as unknown as Record<string, number>);
		const strangeKind = await seed("fs.chmod" as "fs.write", "dispatched", { path: "gone.txt" }, {});
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.unreadable).toEqual([nullReserved, strangeKind]);
		expect(report.operations).toEqual([]);
		expect((await store.listPendingOperations()).map((o) => o.id)).toEqual([nullReserved, strangeKind]);
	});

	it("reports unreadable rows on every reopen but records them only once, with the work they came with", async () => {
		await seed("fs.write", "dispatched", null as unknown as Record<string, unknown>, {});
		await recoverOperations(store, { now: () => NOW });
		const before = await store.listAudit();
		const again = await recoverOperations(store, { now: () => NOW });
		expect(again.unreadable).toHaveLength(1);
		expect(await store.listAudit()).toEqual(before);
	});

	it("does not look outside the workspace for a recorded path that leaves it", async () => {
		const escaping = await seed("fs.write", "dispatched", { path: "../outside.txt", sha256_before: null, sha256_after: sha256("x") }, {});
		const report = await recoverOperations(store, { now: () => NOW });
		expect(report.operations).toEqual([expect.objectContaining({ id: escaping, state: "unknown", by: "the recorded path leaves the workspace" })]);
	});
});
