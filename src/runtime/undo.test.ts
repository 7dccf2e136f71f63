/**
 * Undo through a real Runtime: a scripted session changes files, undo puts them back as a governed
 * session of its own, and a file that changed since, or whose earlier content was never kept, stays
 * as it is with a one-line reason.
 */
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Authority } from "../kernel/authority/authority.js";
import { issueGrant } from "../kernel/authority/capability.js";
import { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import { createRedactor } from "../kernel/flow/redaction.js";
import { createKernel } from "../kernel/kernel.js";
import type { Runtime } from "./runtime.js";
import { callKinds, eventValidator, expectSoundEvidence } from "./test-support/evidence-checks.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";
import { UndoTargetError } from "./undo.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

const ORIGINAL = { "notes.md": "ship on Fridy\nsecond line\n", "old.txt": "keep me\n\u00e9t\u00e9 \u2603\n", "other.md": "alpha\n" };

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-undo-", { files: { ...ORIGINAL, ".env": "API_KEY=sk-live-undocanary000000000000001\n" } }));
});

afterEach(async () => {
	await closeTestRuntime({ root, runtime });
});

const done = { text: "done", toolCalls: [] };
const ws = (path: string) => join(workspace, path);
const sha12 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);

/** One turn: call_1_1_1 creates new.md, call_1_1_2 edits notes.md, call_1_2_1 edits other.md. */
async function agentSession(): Promise<string> {
	const model = new RecordingModel([
		callsStep(
			{ name: "write_file", arguments: { path: "new.md", content: "brand new\n" } },
			{ name: "edit_file", arguments: { path: "notes.md", old: "Fridy", new: "Friday" } },
		),
		callsStep({ name: "edit_file", arguments: { path: "other.md", old: "alpha", new: "beta" } }),
		done,
	]);
	const session = await runtime.openSession({ workspace, model, mode: "workspace-write" });
	const result = await session.send("tidy the notes");
	expect(result).toMatchObject({ status: "completed", toolCalls: { completed: 3 } });
	await deleteAsAgent(session.id, "old.txt");
	await session.end();
	return session.id;
}

/**
 * No built-in tool deletes a file yet: this plays the call a delete tool would make in a turn of its
 * own (turn 2, call_2_1_1), through the kernel's fs.delete with the session's operation log.
 */
async function deleteAsAgent(sessionId: string, path: string): Promise<void> {
	const recorder = new EvidenceRecorder(runtime.store, createRedactor({ env: {} }), sessionId, () => {});
	recorder.setTurn(await runtime.store.nextTurn(sessionId));
	const id = `call_${recorder.currentTurn}_1_1`;
	await recorder.emit("turn.started", { input: `delete ${path}` });
	await recorder.emit("tool.proposed", { call_id: id, tool: "delete_file", arguments: { path } });
	await recorder.emit("permission.decided", { call_id: id, tool: "delete_file", decision: "allow", layer: "host-rule", reason: "test" });
	await recorder.emit("tool.started", { call_id: id, tool: "delete_file" });
	const grants = [issueGrant({ resource: "fs:**", rights: ["delete"] }, "host", "test", "g1")];
	const kernel = createKernel({
		workspace,
		callId: id,
		signal: new AbortController().signal,
		recordEffect: (e) => recorder.effect(e),
		authority: new Authority({ grants }).forCall({ approved: false }),
		operations: recorder.operationLog(),
	});
	await kernel.fs.delete(path);
	await recorder.emit("tool.completed", { call_id: id, tool: "delete_file", duration_ms: 1, output_bytes: 0, truncated: false });
	await recorder.emit("turn.completed", { status: "completed", steps: 1 });
}

describe("runtime.undo", () => {
	it("restores a session's created, edited and deleted files byte for byte, as a sound governed session", async () => {
		const sessionId = await agentSession();
		expect(await readFile(ws("notes.md"), "utf8")).toBe("ship on Friday\nsecond line\n");
		expect(existsSync(ws("old.txt"))).toBe(false);

		const dry = await runtime.undo({ session: sessionId }, { dryRun: true });
		expect(dry.dry_run).toBe(true);
		expect(dry.session).toBeUndefined();
		expect(dry.restored.map((r) => [r.path, r.action]).sort()).toEqual([["new.md", "deleted"], ["notes.md", "written"], ["old.txt", "written"], ["other.md", "written"]]);
		expect(existsSync(ws("new.md"))).toBe(true);

		const result = await runtime.undo({ session: sessionId });
		expect(result.refused).toEqual([]);
		expect(result.restored).toHaveLength(4);
		// Newest change first: the delete came last.
		expect(result.restored[0]).toMatchObject({ path: "old.txt", action: "written", call: "undo_1_1" });
		for (const [path, content] of Object.entries(ORIGINAL)) expect(await readFile(ws(path))).toEqual(Buffer.from(content, "utf8"));
		expect(existsSync(ws("new.md"))).toBe(false);

		const undoSession = result.session!;
		expect(await runtime.getSession(undoSession)).toMatchObject({ model: "undo", mode: "workspace-write", status: "ok" });
		const events = await expectSoundEvidence(runtime, undoSession, validate);
		expect(callKinds(events, "undo_1_1")).toEqual(["tool.proposed", "permission.decided", "tool.started", "effect.recorded", "tool.completed"]);
		const decided = events.find((e) => e.kind === "permission.decided");
		expect(decided?.payload).toMatchObject({ decision: "allow", layer: "host-rule", reason: `warden undo of session ${sessionId} requested by the host` });

		// Each restore is a protected operation of the undo session, with its own effect record and diff.
		const ops = await runtime.store.listOperations({ session: undoSession, states: ["committed"] });
		expect(ops.map((o) => `${o.call_id} ${o.kind} ${o.resource}`).sort()).toEqual([
			"undo_1_1 fs.write fs:old.txt",
			"undo_1_2 fs.write fs:other.md",
			"undo_1_3 fs.write fs:notes.md",
			"undo_1_4 fs.delete fs:new.md",
		]);
		const audit = await runtime.listAudit({ session: undoSession });
		const notesEffect = audit.find((r) => r.kind === "effect" && r.data.resource === "fs:notes.md");
		expect(notesEffect?.data.diff).toContain("-ship on Friday\n+ship on Fridy");
		expect(result.restored.find((r) => r.path === "notes.md")?.effect_seq).toBe(notesEffect?.seq);
		const completed = audit.find((r) => r.kind === "undo.completed");
		expect(completed?.data).toMatchObject({ target: { session: sessionId }, refused: [] });
		expect(completed?.data.restored).toHaveLength(4);
		// The explanation of a restore names its decision and its diff.
		const tree = await runtime.explain(`#${notesEffect?.seq}`);
		expect(tree).toMatchObject({ call: "undo_1_3", session: undoSession, decision: { decision: "allow", layer: "host-rule" } });
		expect(tree.effects[0]?.diff).toContain("+ship on Fridy");

		// Undoing again finds every file already as it was before the session.
		const again = await runtime.undo({ session: sessionId });
		expect(again).toMatchObject({ restored: [], refused: [] });
		expect(again.unchanged.sort()).toEqual(["new.md", "notes.md", "old.txt", "other.md"]);
	});

	it("undoes one call only, and refuses a file changed since while restoring the others", async () => {
		const sessionId = await agentSession();
		const one = await runtime.undo({ call: "call_1_2_1" });
		expect(one).toMatchObject({ target: { session: sessionId, call: "call_1_2_1" }, refused: [] });
		expect(one.restored.map((r) => r.path)).toEqual(["other.md"]);
		expect(await readFile(ws("other.md"), "utf8")).toBe("alpha\n");
		expect(await readFile(ws("notes.md"), "utf8")).toBe("ship on Friday\nsecond line\n");

		await writeFile(ws("notes.md"), "edited by a human\n");
		const rest = await runtime.undo({ session: sessionId });
		expect(rest.refused).toEqual([
			{
				path: "notes.md",
				reason: `notes.md changed since call_1_1_2 wrote it (now ${sha12("edited by a human\n")}, expected ${sha12("ship on Friday\nsecond line\n")}); not restored`,
			},
		]);
		// other.md was put back by the first undo: already as before, neither restored nor refused.
		expect(rest.unchanged).toEqual(["other.md"]);
		expect(rest.restored.map((r) => r.path).sort()).toEqual(["new.md", "old.txt"]);
		expect(await readFile(ws("notes.md"), "utf8")).toBe("edited by a human\n");
		expect(existsSync(ws("new.md"))).toBe(false);
		expect(await readFile(ws("old.txt"), "utf8")).toBe(ORIGINAL["old.txt"]);
		const audit = await runtime.listAudit({ session: rest.session! });
		expect(audit.find((r) => r.kind === "undo.completed")?.data.refused).toEqual(rest.refused);
		await expectSoundEvidence(runtime, rest.session!, validate);
	});

	it("refuses a secret file the agent edited: its earlier content was never kept", async () => {
		const model = new RecordingModel([
			callsStep({ name: "edit_file", arguments: { path: ".env", old: "API_KEY", new: "API_TOKEN" } }, { name: "write_file", arguments: { path: "b.md", content: "b\n" } }),
			done,
		]);
		const session = await runtime.openSession({ workspace, model, mode: "workspace-write", rules: { allow: ["edit_file"] } });
		const turn = await session.send("rename the key");
		expect(turn.toolCalls.completed).toBe(2);
		await session.end();

		const result = await runtime.undo({ session: session.id });
		expect(result.refused).toEqual([
			{ path: ".env", reason: ".env cannot be restored: no before-image was kept for call_1_1_1's change (Warden keeps none for secret content); not restored" },
		]);
		expect(result.restored.map((r) => r.path)).toEqual(["b.md"]);
		expect(await readFile(ws(".env"), "utf8")).toContain("API_TOKEN=");
		expect(existsSync(ws("b.md"))).toBe(false);
		await expectSoundEvidence(runtime, result.session!, validate);
	});

	it("never restores a protected path on its own: a git hook the session wrote is left, with the reason", async () => {
		const model = new RecordingModel([
			callsStep({ name: "write_file", arguments: { path: ".git/hooks/pre-commit", content: "#!/bin/sh\nnpm test\n" } }, { name: "write_file", arguments: { path: "b.md", content: "b\n" } }),
			done,
		]);
		const session = await runtime.openSession({ workspace, model, mode: "workspace-write", rules: { allow: ["write_file(.git/hooks/pre-commit)"] } });
		expect((await session.send("add a hook")).toolCalls.completed).toBe(2);
		await session.end();

		const dry = await runtime.undo({ session: session.id }, { dryRun: true });
		expect(dry.refused.map((r) => r.path)).toEqual([".git/hooks/pre-commit"]);
		const result = await runtime.undo({ session: session.id });
		expect(result.refused).toEqual([
			{
				path: ".git/hooks/pre-commit",
				reason:
					".git/hooks/pre-commit is a protected path (writes a git hook: runs outside the sandbox on the next commit; rule **/.git/hooks/** from default): undo does not restore it on its own; check it and put it back by hand",
			},
		]);
		expect(result.restored.map((r) => r.path)).toEqual(["b.md"]);
		expect(await readFile(ws(".git/hooks/pre-commit"), "utf8")).toBe("#!/bin/sh\nnpm test\n");
		await expectSoundEvidence(runtime, result.session!, validate);
	});

	it("throws UndoTargetError for an unknown session or call", async () => {
		await expect(runtime.undo({ session: "nope" })).rejects.toThrow(new UndoTargetError("no session nope"));
		await expect(runtime.undo({ call: "call_9_9_9" })).rejects.toThrow(new UndoTargetError("no call call_9_9_9 in the recorded evidence"));
		const sessionId = await agentSession();
		await expect(runtime.undo({ call: "call_9_9_9", session: sessionId })).rejects.toThrow(`no call call_9_9_9 in session ${sessionId}`);
	});
});
