import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ScriptedModel } from "../models/scripted.js";
import type { Runtime } from "./runtime.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";
import { consumedOf } from "../kernel/evidence/store-rows.js";

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-resumed-authority-"));
});

afterEach(() => closeTestRuntime({ root, runtime }));

const write = (path: string) => ({ tool_calls: [{ name: "write_file", arguments: { path, content: `${path}\n` } }] });
const plan = (...steps: unknown[]) => ScriptedModel.fromPlan({ steps }, "scripted:test");
const exists = (path: string) =>
	stat(path).then(
		() => true,
		() => false,
	);

describe("one-use authority across runs of a session", () => {
	it("a counted grant's use recorded in an intent stays spent when the session is resumed, its sub-agents' too", async () => {
		const grants = [{ id: "once", resource: "fs:**", rights: ["write" as const], uses: 2 }];
		const session = await runtime.openSession({
			workspace,
			grants,
			model: plan(write("a.txt"), { tool_calls: [{ name: "agent", arguments: { task: "w", tools: ["write_file"], steps: [write("b.txt"), { text: "ok" }] } }] }, { text: "done" }),
		});
		expect((await session.send("two writes")).status).toBe("completed");
		await session.end();
		const ops = await runtime.store.listOperations({});
		expect(ops.map((op) => consumedOf(op)?.grants?.map((g) => g.grant))).toEqual([["once"], [expect.stringMatching(/.+/), "once"]]);

		const resumed = await runtime.resumeSession(session.id, { grants, model: plan(write("c.txt"), { text: "done" }) });
		const result = await resumed.send("one more");
		await resumed.end();
		expect(result.toolCalls).toMatchObject({ failed: 1 });
		expect(await exists(join(workspace, "c.txt"))).toBe(false);
		const audit = await runtime.listAudit({ session: session.id });
		expect(audit.find((r) => r.kind === "session.resumed")?.data.authority_consumed).toEqual({ grant_uses: { once: 2 }, leases: 0 });
		expect(audit.find((r) => r.kind === "authority.denied")?.data).toMatchObject({ grant: "once", reason: "used-up" });
	});

	it("a counted use no intent carried (a read) is recorded with its call and stays spent on resume", async () => {
		const grants = [{ id: "one-read", resource: "fs:**", rights: ["read" as const], uses: 1 }];
		await writeFile(join(workspace, "notes.txt"), "hello\n");
		const read = { tool_calls: [{ name: "read_file", arguments: { path: "notes.txt" } }] };
		const session = await runtime.openSession({ workspace, grants, model: plan(read, { text: "read" }) });
		expect((await session.send("read")).toolCalls).toMatchObject({ completed: 1 });
		await session.end();
		const used = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "authority.used");
		expect(used).toMatchObject({ call_id: "call_1_1_1", data: { grants: [{ holder: `session:${session.id}`, grant: "one-read" }] } });
		const resumed = await runtime.resumeSession(session.id, { grants, model: plan(read, { text: "again" }) });
		expect((await resumed.send("read again")).toolCalls).toMatchObject({ failed: 1 });
		await resumed.end();
	});

	it("an approved call's lease is written into its intent, and a resumed session counts it consumed", async () => {
		const session = await runtime.openSession({ workspace, model: plan(write("a.txt"), { text: "done" }), rules: { ask: ["write_file"] }, confirm: async () => true });
		expect((await session.send("write")).status).toBe("completed");
		await session.end();
		const [op] = await runtime.store.listOperations({ session: session.id });
		const confirmed = (await runtime.sessionEvents(session.id)).find((e) => e.kind === "permission.confirmed");
		expect(confirmed?.kind).toBe("permission.confirmed");
		expect(op?.consumed).toEqual({ lease: (confirmed!.payload as { lease: string }).lease });
		const resumed = await runtime.resumeSession(session.id, { model: plan({ text: "nothing to do" }) });
		await resumed.send("hello");
		await resumed.end();
		const audit = await runtime.listAudit({ session: session.id });
		expect(audit.find((r) => r.kind === "session.resumed")?.data.authority_consumed).toEqual({ grant_uses: {}, leases: 1 });
	});
});
