import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Runtime } from "./runtime.js";
import { TaskRuns } from "./task-runs.js";
import { RecordingModel } from "./test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

let root: string;
let workspace: string;
let runtime: Runtime;
let runs: TaskRuns;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-runs-", { files: { "a.txt": "a\n" } }));
	runs = new TaskRuns(runtime);
});

afterEach(async () => {
	await closeTestRuntime({ root, runtime });
});

const done = (text: string) => ({ text, toolCalls: [] });

/** A run whose session holds an effect recovery could not account for. */
async function seedUnknownEffect(session: string): Promise<string> {
	const id = "op_seeded";
	const store = runtime.store;
	await store.prepareOperation({
		id,
		session,
		turn: 1,
		call_id: "call_1_1_1",
		kind: "shell.exec",
		resource: "shell:make deploy",
		intent: { command: "make deploy" },
		reserved: {},
		created_at: new Date().toISOString(),
	});
	await store.markOperationDispatched(id);
	await store.settleOperation(id, { state: "unknown", outcome: { recovered: true, by: "a shell command's effects cannot be observed" } });
	return id;
}

describe("task runs", () => {
	it("starts once: the same start again returns the stored result and does not call the model", async () => {
		const model = new RecordingModel([done("first")]);
		const first = await runs.start("run-1", "do it", { workspace, model });
		expect(first).toMatchObject({ replayed: false, result: { run: "run-1", command: "run-1", kind: "start", state: "completed", status: "completed", turn: 1, text: "first" } });
		const again = await runs.start("run-1", "do it", { workspace, model });
		expect(again).toEqual({ replayed: true, result: first.result });
		expect(model.requests).toHaveLength(1);
		expect(await runtime.listSessions()).toHaveLength(1);
		expect(await runtime.store.getTaskRun("run-1")).toMatchObject({ state: "completed", session: first.result.session });
	});

	it("runs a follow-up once per command id, in the same session, turns numbered on", async () => {
		const start = await runs.start("run-2", "do it", { workspace, model: new RecordingModel([done("one")]) });
		const model = new RecordingModel([done("two")]);
		const follow = await runs.followUp("run-2", "cmd-1", "and then?", { model });
		expect(follow).toMatchObject({ replayed: false, result: { state: "completed", turn: 2, text: "two", session: start.result.session } });
		expect(await runs.followUp("run-2", "cmd-1", "and then?", { model })).toEqual({ replayed: true, result: follow.result });
		expect(model.requests).toHaveLength(1);
		expect(model.requests[0]!.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["do it", "and then?"]);
		expect((await runs.show("run-2")).commands.map((c) => [c.command_id, c.kind, c.state])).toEqual([
			["run-2", "start", "done"],
			["cmd-1", "follow-up", "done"],
		]);
	});

	it("needs attention for an unknown effect: show names it, continue is refused until resolve", async () => {
		const start = await runs.start("run-3", "deploy", { workspace, model: new RecordingModel([done("ok")]) });
		const op = await seedUnknownEffect(start.result.session);
		const view = await runs.show("run-3");
		expect(view.run.state).toBe("needs_attention");
		expect(view.unknownEffects).toEqual([
			{ operation: op, call_id: "call_1_1_1", kind: "shell.exec", resource: "shell:make deploy", why: "a shell command's effects cannot be observed" },
		]);
		expect(view.run.attention).toContain(`operation ${op}`);
		const model = new RecordingModel([done("continued")]);
		await expect(runs.continue("run-3", "cont-1", { model })).rejects.toThrow(/^run run-3 needs attention \(unknown effect shell\.exec shell:make deploy/);
		expect(model.requests).toHaveLength(0);

		const resolved = await runs.resolve("run-3", "ack-1");
		expect(resolved.result).toMatchObject({ kind: "resolve", state: "completed" });
		expect(await runs.resolve("run-3", "ack-1")).toEqual({ replayed: true, result: resolved.result });
		const record = (await runtime.listAudit({ session: start.result.session })).find((r) => r.kind === "run.resolved")!;
		expect(record.data).toMatchObject({ run: "run-3", command_id: "ack-1", operations: [op], commands: [] });
		expect((await runs.show("run-3")).run).toMatchObject({ state: "completed" });

		expect(await runs.continue("run-3", "cont-1", { model })).toMatchObject({ result: { state: "completed", text: "continued" } });
		expect(model.requests[0]!.at(-1)).toEqual({ role: "user", content: "continue" });
	});

	it("does not run a command again that was accepted but never finished; the run needs attention", async () => {
		await runs.start("run-4", "do it", { workspace, model: new RecordingModel([done("one")]) });
		// What a process that died mid-command leaves: the command accepted, no result.
		await runtime.store.recordRunCommand({ run: "run-4", command_id: "cmd-x", kind: "follow-up", input: "more", created_at: new Date().toISOString() });
		const model = new RecordingModel([done("two")]);
		const retry = await runs.followUp("run-4", "cmd-x", "more", { model });
		expect(retry.replayed).toBe(true);
		expect(retry.interrupted).toBe("command cmd-x of run run-4 was accepted but never finished (the process stopped while it ran); it is not run again");
		expect(retry.result.state).toBe("needs_attention");
		expect(model.requests).toHaveLength(0);
		expect((await runs.show("run-4")).interrupted.map((c) => c.command_id)).toEqual(["cmd-x"]);
		await runs.resolve("run-4", "ack");
		expect((await runs.list()).find((r) => r.id === "run-4")).toMatchObject({ state: "completed" });
	});

	it("cancels a run: further follow-ups are refused; unknown ids are refused in one line", async () => {
		await runs.start("run-5", "do it", { workspace, model: new RecordingModel([done("one")]) });
		expect((await runs.cancel("run-5", "stop")).result).toMatchObject({ kind: "cancel", state: "cancelled" });
		await expect(runs.followUp("run-5", "late", "more", { model: new RecordingModel([]) })).rejects.toThrow(/^run run-5 was cancelled$/);
		await expect(runs.show("nope")).rejects.toThrow(/^unknown run nope$/);
		await expect(runs.start("bad id", "x", { workspace, model: new RecordingModel([]) })).rejects.toThrow(/^run id must be/);
	});
});
