import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { taskCeiling } from "../kernel/authority/task-ceiling.js";
import type { WardenEvent } from "../kernel/evidence/event-types.js";
import type { Runtime } from "./runtime.js";
import { RuntimeConfigError } from "./runtime-config-error.js";
import { callKinds, eventValidator, expectSoundEvidence } from "./test-support/evidence-checks.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-authority-", { files: { "notes.md": "notes\n" }, dirs: ["secrets"] }));
});

afterEach(() => closeTestRuntime({ root, runtime }));

const write = (path: string, content = `${path}\n`) => ({ name: "write_file", arguments: { path, content } });
const exists = (path: string) =>
	stat(join(workspace, path)).then(
		() => true,
		() => false,
	);
const done = { text: "done", toolCalls: [] };

describe("capabilities at the primitive, through the Runtime", () => {
	it("refuses a write outside the ceiling even when a host rule allows it, with evidence", async () => {
		const ceiling = { exclude: [{ resource: "fs:secrets/**", rights: ["read" as const, "write" as const] }] };
		const hash = taskCeiling(ceiling).hash;
		const model = new RecordingModel([callsStep(write("secrets/x"), write("notes.md", "more\n")), done]);
		const session = await runtime.openSession({ workspace, model, mode: "full-access", rules: { allow: ["write_file"] }, ceiling });
		const result = await session.send("write the secret");

		expect(result.status).toBe("completed");
		expect(result.toolCalls).toMatchObject({ completed: 1, failed: 1 });
		expect(await exists("secrets/x")).toBe(false);
		expect(await readFile(join(workspace, "notes.md"), "utf8")).toBe("more\n");

		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(callKinds(events, "call_1_1_1")).toEqual(["tool.proposed", "permission.decided", "tool.started", "tool.failed"]);
		const decided = events.filter((e): e is WardenEvent<"permission.decided"> => e.kind === "permission.decided");
		expect(decided.map((e) => [e.payload.decision, e.payload.layer, e.payload.ceiling])).toEqual([
			["allow", "host-rule", hash],
			["allow", "host-rule", hash],
		]);
		const failed = events.find((e) => e.kind === "tool.failed");
		expect(failed?.payload).toMatchObject({ error: `capability refused: write on fs:secrets/x: outside the task ceiling ${hash.slice(0, 12)}` });

		const audit = await runtime.listAudit({ session: session.id });
		const started = audit.find((r) => r.kind === "session.started");
		expect(started?.data.ceiling).toMatchObject({ hash });
		expect(started?.data.grants).toEqual([
			expect.objectContaining({ resource: "fs:**", rights: ["read", "write", "delete"], issuer: "mode:full-access" }),
			expect.objectContaining({ resource: "shell:*", rights: ["exec"], issuer: "mode:full-access" }),
			expect.objectContaining({ resource: "mcp:*", rights: ["read", "exec"], issuer: "mode:full-access" }),
			expect.objectContaining({ resource: "net:*", rights: ["egress"], issuer: "mode:full-access" }),
			expect.objectContaining({ resource: "llm:*", rights: ["egress"], issuer: "mode:full-access" }),
			expect.objectContaining({ resource: "human:*", rights: ["egress"], issuer: "mode:full-access" }),
			expect.objectContaining({ resource: "memory:*", rights: ["read", "write"], issuer: "mode:full-access" }),
		]);
		expect(audit.filter((r) => r.kind === "permission.decided").every((r) => r.data.ceiling === hash)).toBe(true);
		const denied = audit.filter((r) => r.kind === "authority.denied");
		expect(denied).toHaveLength(1);
		expect(denied[0]).toMatchObject({ call_id: "call_1_1_1", data: { resource: "fs:secrets/x", right: "write", reason: "ceiling", ceiling: hash } });
		// The model is told the call failed, not that it worked.
		const toolMessage = model.requests[1]?.find((m) => m.role === "tool" && m.tool_call_id === "call_1_1_1");
		expect(toolMessage?.content).toContain("capability refused");
	});

	it("admits one write on a grant with one use and refuses the second", async () => {
		const model = new RecordingModel([callsStep(write("out.txt", "one\n")), callsStep(write("out.txt", "two\n")), done]);
		const session = await runtime.openSession({
			workspace,
			model,
			grants: [
				{ resource: "fs:**", rights: ["read"] },
				{ id: "once", resource: "fs:out.txt", rights: ["write"], uses: 1 },
			],
		});
		const result = await session.send("write twice");
		expect(result.toolCalls).toMatchObject({ completed: 1, failed: 1 });
		expect(await readFile(join(workspace, "out.txt"), "utf8")).toBe("one\n");
		const audit = await runtime.listAudit({ session: session.id });
		expect(audit.filter((r) => r.kind === "authority.denied").map((r) => [r.call_id, r.data.reason, r.data.grant])).toEqual([["call_1_2_1", "used-up", "once"]]);
		await expectSoundEvidence(runtime, session.id, validate);
	});

	it("refuses a write on an expired grant, and a shell command no grant covers", async () => {
		const model = new RecordingModel([callsStep(write("late.txt"), { name: "shell", arguments: { command: "touch made.txt" } }), done]);
		const session = await runtime.openSession({
			workspace,
			model,
			mode: "full-access",
			grants: [{ resource: "fs:**", rights: ["read", "write"], expires_at: "2001-01-01T00:00:00Z" }],
		});
		await session.send("write late");
		expect(await exists("late.txt")).toBe(false);
		expect(await exists("made.txt")).toBe(false);
		const audit = await runtime.listAudit({ session: session.id });
		// Different tools run in parallel: the order of their records is not fixed.
		expect(audit.filter((r) => r.kind === "authority.denied").map((r) => [r.data.resource, r.data.reason]).sort()).toEqual([
			["fs:late.txt", "expired"],
			["shell:touch made.txt", "no-grant"],
		]);
	});

	it("bounds the session's budget by the ceiling's and refuses a malformed grant before the session opens", async () => {
		const session = await runtime.openSession({ workspace, model: new RecordingModel([done]), budget: { tool_calls: 9 }, ceiling: { budget: { tool_calls: 2 } } });
		expect(session.budgetUsage().tool_calls?.limit).toBe(2);
		await expect(runtime.openSession({ workspace, model: new RecordingModel([done]), grants: [{ resource: "src/**", rights: ["read"] }] })).rejects.toThrow(
			RuntimeConfigError,
		);
		await expect(runtime.openSession({ workspace, model: new RecordingModel([done]), ceiling: { effects: "all" } as never })).rejects.toThrow(
			"ceiling.effects must be a list of { resource, rights }",
		);
	});
});
