import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SqliteStore } from "../../store/sqlite-store.js";
import { openSqliteStore } from "../evidence/store-rows.js";
import { taskCeiling } from "../authority/task-ceiling.js";
import type { EffectRecord } from "../effects.js";
import type { AnyWardenEvent } from "../evidence/event-types.js";
import { EvidenceRecorder } from "../evidence/evidence-recorder.js";
import { createRedactor } from "../flow/redaction.js";
import { SessionFlow } from "../flow/session-flow.js";
import { createSinkRegistry, defaultSinkRules } from "../flow/sink-registry.js";
import { createKernel } from "../kernel.js";
import { PrimitiveCancelledError } from "../kernel-errors.js";
import type { OperationLog, ProtectedSpec } from "./protected-operation.js";
import { runProtected } from "./protected-operation.js";

const SESSION = "s1";

function sha256(bytes: string | Buffer): string {
	return createHash("sha256").update(bytes).digest("hex");
}

interface Harness {
	base: string;
	workspace: string;
	store: SqliteStore;
	recorder: EvidenceRecorder;
	/** What the recorder handed to the host, in order. */
	heard: AnyWardenEvent[];
	/** What recordEffect received (the path without a log). */
	effects: EffectRecord[];
	recordEffect: (e: EffectRecord) => Promise<void>;
}

let h: Harness;

beforeEach(async () => {
	const base = realpathSync(mkdtempSync(path.join(tmpdir(), "warden-protected-")));
	const workspace = path.join(base, "ws");
	mkdirSync(workspace);
	const store = openSqliteStore(path.join(base, "state"));
	await store.createSession({ id: SESSION, workspace, mode: "workspace-write", model: "scripted:test", created_at: new Date().toISOString() });
	const heard: AnyWardenEvent[] = [];
	const recorder = new EvidenceRecorder(store, createRedactor({ env: {} }), SESSION, (e) => heard.push(e));
	recorder.setTurn(1);
	const effects: EffectRecord[] = [];
	h = {
		base,
		workspace,
		store,
		recorder,
		heard,
		effects,
		recordEffect: async (e) => {
			effects.push(e);
		},
	};
});

afterEach(async () => {
	await h.store.close();
	rmSync(h.base, { recursive: true, force: true });
});

async function onlyOperation() {
	const ops = await h.store.listOperations({ session: SESSION });
	expect(ops).toHaveLength(1);
	return ops[0]!;
}

/** A spec for a pretend write whose dispatch counts its calls and can look at the operation's state mid-flight. */
function writeSpec(over: Partial<ProtectedSpec<string>> = {}): ProtectedSpec<string> & { dispatches: number; stateDuringDispatch: string[] } {
	const spec = {
		dispatches: 0,
		stateDuringDispatch: [] as string[],
		kind: "fs.write" as const,
		callId: "call-1",
		resource: "fs:a.txt",
		intent: { path: "a.txt", sha256_before: sha256("old"), sha256_after: sha256("new") },
		reserved: { bytes_written: 3 },
		beforeImage: { sha256: sha256("old"), bytes: Buffer.from("old") },
		dispatch: async () => {
			spec.dispatches++;
			spec.stateDuringDispatch.push((await onlyOperation()).state);
			return "done";
		},
		settled: (r: string) => ({ state: "committed" as const, effect: { bytes: 3, result: r }, outcome: { bytes: 3 } }),
		errored: () => ({ state: "failed" as const }),
		...over,
	};
	return spec;
}

describe("runProtected with an operation log", () => {
	it("prepares, marks dispatched before the provider runs, and settles committed with one effect record and its event", async () => {
		const spec = writeSpec();
		const result = await runProtected(h.recorder.operationLog(), h.recordEffect, spec);
		expect(result).toBe("done");
		expect(spec.dispatches).toBe(1);
		// The provider ran only once the dispatched mark was durable.
		expect(spec.stateDuringDispatch).toEqual(["dispatched"]);

		const op = await onlyOperation();
		expect(op).toMatchObject({ session: SESSION, turn: 1, call_id: "call-1", kind: "fs.write", resource: "fs:a.txt", state: "committed", reserved: { bytes_written: 3 }, outcome: { bytes: 3 } });
		expect(op.id).toMatch(/^op_[0-9a-f-]{36}$/);

		const effects = (await h.store.listAudit()).filter((r) => r.kind === "effect");
		expect(effects).toHaveLength(1);
		const record = effects[0]!;
		expect(record.call_id).toBe("call-1");
		expect(record.data).toEqual({ effect: "fs.write", resource: "fs:a.txt", bytes: 3, result: "done", operation: op.id, state: "committed" });
		expect(op.audit_seq).toBe(record.seq);

		// The event names that record, both as stored and as the host heard it.
		const stored = (await h.store.listEvents(SESSION)).filter((e) => e.kind === "effect.recorded");
		expect(stored.map((e) => e.payload)).toEqual([{ call_id: "call-1", effect: "fs.write", resource: "fs:a.txt", audit_seq: record.seq }]);
		expect(h.heard.map((e) => [e.kind, e.payload])).toEqual([["effect.recorded", { call_id: "call-1", effect: "fs.write", resource: "fs:a.txt", audit_seq: record.seq }]]);

		expect((await h.store.getBlob(sha256("old")))?.toString()).toBe("old");
		// With a log, the sink of the log-less path is not used.
		expect(h.effects).toEqual([]);
		expect(await h.store.verifyAudit()).toMatchObject({ ok: true });
	});

	it("abandons an operation whose revalidation refuses: the provider is never called", async () => {
		const spec = writeSpec({
			revalidate: () => {
				throw new Error("lease expired");
			},
		});
		await expect(runProtected(h.recorder.operationLog(), h.recordEffect, spec)).rejects.toThrow("lease expired");
		expect(spec.dispatches).toBe(0);
		const op = await onlyOperation();
		expect(op.state).toBe("abandoned");
		expect(op.outcome).toEqual({ reason: "lease expired" });
		const audit = await h.store.listAudit();
		expect(audit.map((r) => r.kind)).toEqual(["operation.abandoned"]);
		expect(audit[0]!.data).toEqual({ operation: op.id, state: "abandoned", reason: "lease expired" });
		expect(op.audit_seq).toBe(audit[0]!.seq);
		expect(h.heard).toEqual([]);
	});

	it("settles a dispatch that threw as failed, with the error and no effect record, when errored() says it certainly did not happen", async () => {
		const spec = writeSpec({
			dispatch: async () => {
				throw new Error("disk full");
			},
		});
		await expect(runProtected(h.recorder.operationLog(), h.recordEffect, spec)).rejects.toThrow("disk full");
		const op = await onlyOperation();
		expect(op.state).toBe("failed");
		expect(op.outcome).toEqual({ error: "disk full" });
		const audit = await h.store.listAudit();
		expect(audit.map((r) => r.kind)).toEqual(["operation.settled"]);
		expect(audit[0]!.data).toEqual({ operation: op.id, state: "failed", error: "disk full" });
		expect(h.heard).toEqual([]);
	});

	it("settles a dispatch that threw as unknown, with an effect record, when errored() says it may have happened", async () => {
		const spec = writeSpec({
			dispatch: async () => {
				throw new Error("spawn died");
			},
			errored: () => ({ state: "unknown", effect: { partial: true }, outcome: { stage: "spawn" } }),
		});
		await expect(runProtected(h.recorder.operationLog(), h.recordEffect, spec)).rejects.toThrow("spawn died");
		const op = await onlyOperation();
		expect(op.state).toBe("unknown");
		expect(op.outcome).toEqual({ stage: "spawn", error: "spawn died" });
		const audit = await h.store.listAudit();
		expect(audit.map((r) => r.kind)).toEqual(["effect"]);
		expect(audit[0]!.data).toEqual({ effect: "fs.write", resource: "fs:a.txt", partial: true, operation: op.id, state: "unknown" });
		expect(h.heard.map((e) => e.payload)).toEqual([{ call_id: "call-1", effect: "fs.write", resource: "fs:a.txt", audit_seq: audit[0]!.seq }]);
	});
});

describe("runProtected without an operation log", () => {
	it("records the effect through recordEffect and keeps no operation", async () => {
		const spec = writeSpec({ dispatch: async () => "plain" });
		await expect(runProtected(undefined, h.recordEffect, spec)).resolves.toBe("plain");
		expect(h.effects).toEqual([{ call_id: "call-1", effect: "fs.write", resource: "fs:a.txt", data: { bytes: 3, result: "plain" } }]);
		expect(await h.store.listOperations({})).toEqual([]);
		expect(await h.store.listAudit()).toEqual([]);
	});

	it("still revalidates before dispatch, and records an errored dispatch only when errored() names an effect", async () => {
		let dispatched = 0;
		const refused = writeSpec({
			revalidate: () => {
				throw new Error("refused");
			},
			dispatch: async () => {
				dispatched++;
				return "x";
			},
		});
		await expect(runProtected(undefined, h.recordEffect, refused)).rejects.toThrow("refused");
		expect(dispatched).toBe(0);

		const failing = writeSpec({
			dispatch: async () => {
				throw new Error("boom");
			},
		});
		await expect(runProtected(undefined, h.recordEffect, failing)).rejects.toThrow("boom");
		expect(h.effects).toEqual([]);

		const unknown = writeSpec({
			dispatch: async () => {
				throw new Error("lost");
			},
			errored: () => ({ state: "unknown", effect: { partial: true } }),
		});
		await expect(runProtected(undefined, h.recordEffect, unknown)).rejects.toThrow("lost");
		expect(h.effects).toEqual([{ call_id: "call-1", effect: "fs.write", resource: "fs:a.txt", data: { partial: true } }]);
	});
});

describe("the kernel's primitives as protected operations", () => {
	function kernel(opts: { signal?: AbortSignal; log?: OperationLog; flow?: SessionFlow; callId?: string } = {}) {
		const callId = opts.callId ?? "call-k";
		const signal = opts.signal ?? new AbortController().signal;
		return createKernel({
			workspace: h.workspace,
			callId,
			signal,
			recordEffect: h.recordEffect,
			env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
			operations: opts.log ?? h.recorder.operationLog(),
			...(opts.flow ? { flow: opts.flow.forCall(callId, signal) } : {}),
		});
	}

	function sessionFlow(): SessionFlow {
		return new SessionFlow({
			session: SESSION,
			workspace: h.workspace,
			registry: createSinkRegistry(defaultSinkRules({ model: { sink: "llm:remote", local: false } })),
			ceiling: taskCeiling(),
			redactor: createRedactor({ env: {} }),
			fileLabels: h.store,
			record: async () => {},
		});
	}

	async function effectRecords() {
		return (await h.store.listAudit()).filter((r) => r.kind === "effect");
	}

	it("fs.write creating a file: committed, no before-image, the effect record names the operation", async () => {
		await kernel().fs.write("notes/a.txt", "hello\n");
		expect(readFileSync(path.join(h.workspace, "notes/a.txt"), "utf8")).toBe("hello\n");
		const op = await onlyOperation();
		expect(op).toMatchObject({ kind: "fs.write", resource: "fs:notes/a.txt", call_id: "call-k", state: "committed", reserved: { bytes_written: 6 } });
		expect(op.intent).toEqual({ path: "notes/a.txt", sha256_before: null, sha256_after: sha256("hello\n") });
		const [record] = await effectRecords();
		expect(record?.data).toMatchObject({ effect: "fs.write", created: true, bytes: 6, sha256_before: null, sha256_after: sha256("hello\n"), operation: op.id, state: "committed" });
		expect(op.audit_seq).toBe(record?.seq);
		expect(h.effects).toEqual([]);
	});

	it("fs.write replacing a file keeps its before-image by content hash", async () => {
		writeFileSync(path.join(h.workspace, "a.txt"), "one\n");
		await kernel().fs.write("a.txt", "two\n");
		const op = await onlyOperation();
		expect(op.intent).toEqual({ path: "a.txt", sha256_before: sha256("one\n"), sha256_after: sha256("two\n") });
		expect((await h.store.getBlob(sha256("one\n")))?.toString()).toBe("one\n");
		const [record] = await effectRecords();
		expect(record?.data).toMatchObject({ created: false, sha256_before: sha256("one\n"), operation: op.id });
	});

	it("fs.write replacing a secret file keeps no before-image: evidence never holds the secret", async () => {
		const secret = "DB_PASSWORD=correct-horse-battery-staple\n";
		writeFileSync(path.join(h.workspace, ".env"), secret);
		await kernel({ flow: sessionFlow() }).fs.write(".env", "DB_PASSWORD=\n");
		const op = await onlyOperation();
		expect(op.state).toBe("committed");
		expect(op.intent.sha256_before).toBe(sha256(secret));
		expect(await h.store.getBlob(sha256(secret))).toBeUndefined();
		// The same replacement of an ordinary file does keep it, under the same flow plane.
		writeFileSync(path.join(h.workspace, "plain.txt"), "plain\n");
		await kernel({ flow: sessionFlow(), callId: "call-2" }).fs.write("plain.txt", "changed\n");
		expect((await h.store.getBlob(sha256("plain\n")))?.toString()).toBe("plain\n");
	});

	it("fs.delete: committed, the before-image kept, the record carries the removed content's hash", async () => {
		writeFileSync(path.join(h.workspace, "gone.txt"), "bye\n");
		await kernel().fs.delete("gone.txt");
		expect(existsSync(path.join(h.workspace, "gone.txt"))).toBe(false);
		const op = await onlyOperation();
		expect(op).toMatchObject({ kind: "fs.delete", resource: "fs:gone.txt", state: "committed", intent: { path: "gone.txt", type: "file", sha256: sha256("bye\n") } });
		expect((await h.store.getBlob(sha256("bye\n")))?.toString()).toBe("bye\n");
		const [record] = await effectRecords();
		expect(record?.data).toMatchObject({ effect: "fs.delete", type: "file", bytes: 4, sha256: sha256("bye\n"), operation: op.id, state: "committed" });
	});

	it("shell.exec: committed with its exit status, the whole timeout reserved", async () => {
		const out = await kernel().shell.exec("echo hi > ran.txt; exit 3", { timeoutMs: 5_000, maxOutputBytes: 1024 });
		expect(out.exitCode).toBe(3);
		expect(existsSync(path.join(h.workspace, "ran.txt"))).toBe(true);
		const op = await onlyOperation();
		expect(op).toMatchObject({ kind: "shell.exec", state: "committed", intent: { command: "echo hi > ran.txt; exit 3" }, reserved: { shell_ms: 5_000 } });
		expect(op.outcome).toMatchObject({ exit_code: 3, timed_out: false, cancelled: false });
		const [record] = await effectRecords();
		expect(record?.data).toMatchObject({ effect: "shell.exec", command: "echo hi > ran.txt; exit 3", exit_code: 3, operation: op.id });
	});

	it("a call cancelled after its intent is durable but before dispatch is abandoned, and nothing runs", async () => {
		const controller = new AbortController();
		const log = h.recorder.operationLog();
		// The cancel arrives while the intent is being committed: revalidation must catch it.
		const cancelling: OperationLog = {
			...log,
			prepare: async (intent, image) => {
				const id = await log.prepare(intent, image);
				controller.abort();
				return id;
			},
		};
		const k = kernel({ signal: controller.signal, log: cancelling });
		await expect(k.fs.write("never.txt", "x")).rejects.toBeInstanceOf(PrimitiveCancelledError);
		expect(existsSync(path.join(h.workspace, "never.txt"))).toBe(false);

		const again = new AbortController();
		const cancellingShell: OperationLog = {
			...log,
			prepare: async (intent, image) => {
				const id = await log.prepare(intent, image);
				again.abort();
				return id;
			},
		};
		await expect(kernel({ signal: again.signal, log: cancellingShell }).shell.exec("touch ran.txt", { timeoutMs: 5_000, maxOutputBytes: 1024 })).rejects.toBeInstanceOf(
			PrimitiveCancelledError,
		);
		expect(existsSync(path.join(h.workspace, "ran.txt"))).toBe(false);

		const ops = await h.store.listOperations({ session: SESSION });
		expect(ops.map((o) => [o.kind, o.state])).toEqual([
			["fs.write", "abandoned"],
			["shell.exec", "abandoned"],
		]);
		const audit = await h.store.listAudit();
		expect(audit.map((r) => r.kind)).toEqual(["operation.abandoned", "operation.abandoned"]);
		expect(await effectRecords()).toEqual([]);
	});

	it("a signal already aborted refuses before any intent is written", async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(kernel({ signal: controller.signal }).fs.write("x.txt", "x")).rejects.toBeInstanceOf(PrimitiveCancelledError);
		expect(await h.store.listOperations({})).toEqual([]);
	});
});
