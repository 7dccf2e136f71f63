/**
 * Resuming a session: the conversation, its labels and its turn numbers carry on; what the
 * session read before still decides where its data may go.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Runtime } from "./runtime.js";
import { LOOPBACK_GRANTS, type LoopbackSink, openLoopbackSink } from "./test-support/loopback-sink.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

const SECRET = "sk-live-resumecanary000000000000001";
const files = { ".env": `API_KEY=${SECRET}\n`, "README.md": "# demo\nbuild with make\n" };

let root: string;
let workspace: string;
let runtime: Runtime;
let sink: LoopbackSink;
let origin: string;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-resume-", { files }));
	sink = await openLoopbackSink();
	origin = sink.origin;
});

afterEach(async () => {
	await sink.close();
	await closeTestRuntime({ root, runtime });
});

const done = (text = "done") => ({ text, toolCalls: [] });
const netGrant = LOOPBACK_GRANTS;
const allowFetch = { allow: ["web_fetch"] };
const post = (path: string) => callsStep({ name: "web_fetch", arguments: { url: `${origin}${path}`, method: "POST", body: "ping" } });

describe("resumeSession", () => {
	it("continues the conversation: history intact, turns numbered on, resumed in the evidence", async () => {
		const first = new RecordingModel([callsStep({ name: "read_file", arguments: { path: "README.md" } }), done("read it")]);
		const session = await runtime.openSession({ workspace, model: first });
		expect(await session.send("read the readme")).toMatchObject({ status: "completed", turn: 1 });
		await session.end();

		const second = new RecordingModel([done("make")]);
		const resumed = await runtime.resumeSession(session.id, { model: second });
		expect(resumed.id).toBe(session.id);
		expect(resumed.workspace).toBe(session.workspace);
		const result = await resumed.send("how do I build it?");
		expect(result).toMatchObject({ status: "completed", turn: 2, text: "make" });
		await resumed.end();

		// The model of the resumed session saw the whole earlier conversation, tool result included.
		const seen = second.requests[0]!;
		expect(seen.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
		expect(seen[1]).toMatchObject({ role: "user", content: "read the readme" });
		expect(seen[3]).toMatchObject({ role: "tool", content: expect.stringContaining("build with make") });
		expect(seen[5]).toMatchObject({ role: "user", content: "how do I build it?" });

		const events = await runtime.sessionEvents(session.id);
		expect(events.filter((e) => e.kind === "session.started").map((e) => (e.payload as { resumed: boolean }).resumed)).toEqual([false, true]);
		expect(events.filter((e) => e.kind === "turn.started").map((e) => e.turn)).toEqual([1, 2]);
		const audit = await runtime.listAudit({ session: session.id });
		expect(audit.map((r) => r.kind)).toContain("session.resumed");
		expect(audit.find((r) => r.kind === "session.resumed")!.data).toMatchObject({ previous_status: "ok", messages: 5, unlabeled: 0 });
		expect(await runtime.getSession(session.id)).toMatchObject({ status: "ok", turns: 2 });
		expect(await runtime.verifyAudit()).toMatchObject({ ok: true });
	});

	it("keeps the context secret after a secret was read: a POST after the resume is refused by flow", async () => {
		const first = new RecordingModel([callsStep({ name: "read_file", arguments: { path: ".env" } }), done()]);
		const session = await runtime.openSession({ workspace, model: first, grants: netGrant, rules: allowFetch });
		await session.send("look at the env");
		expect(session.contextLabel.sensitivity).toBe("secret");
		await session.end();

		const second = new RecordingModel([post("/after"), done()]);
		const resumed = await runtime.resumeSession(session.id, { model: second, grants: netGrant, rules: allowFetch });
		expect(resumed.contextLabel.sensitivity).toBe("secret");
		const result = await resumed.send("ping the server");
		expect(result).toMatchObject({ status: "completed", toolCalls: { failed: 1 } });
		expect(sink.received).toEqual([]);
		const events = await runtime.sessionEvents(session.id);
		const decided = events.filter((e) => e.kind === "flow.decided").map((e) => e.payload as { call_id: string; decision: string });
		expect(decided).toEqual([expect.objectContaining({ call_id: "call_2_1_1", decision: "deny" })]);
		await resumed.end();
	});

	it("lets the same POST through when nothing secret was read: the refusal above is the label's doing", async () => {
		const session = await runtime.openSession({ workspace, model: new RecordingModel([done()]), grants: netGrant, rules: allowFetch });
		await session.send("hello");
		await session.end();
		const resumed = await runtime.resumeSession(session.id, { model: new RecordingModel([post("/after"), done()]), grants: netGrant, rules: allowFetch });
		expect(await resumed.send("ping the server")).toMatchObject({ status: "completed", toolCalls: { completed: 1 } });
		expect(sink.received.map((r) => r.path)).toEqual(["/after"]);
		await resumed.end();
	});

	it("counts a message stored without a label as secret (fail closed)", async () => {
		const session = await runtime.openSession({ workspace, model: new RecordingModel([done()]) });
		await session.send("hello");
		await session.end();
		await runtime.store.appendMessage(session.id, { role: "user", content: "from before labels were kept" });
		const resumed = await runtime.resumeSession(session.id, { model: new RecordingModel([done()]) });
		expect(resumed.contextLabel.sensitivity).toBe("secret");
		await resumed.end();
		const record = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "session.resumed")!;
		expect(record.data).toMatchObject({ unlabeled: 1, context: expect.objectContaining({ sensitivity: "secret", integrity: "untrusted" }) });
	});

	it("refuses an unknown id, a session open in this runtime and a sub-agent's session, one line each", async () => {
		await expect(runtime.resumeSession("no-such-session")).rejects.toThrow(/^unknown session no-such-session$/);
		const open = await runtime.openSession({ workspace, model: new RecordingModel([done()]) });
		await expect(runtime.resumeSession(open.id)).rejects.toThrow(/is open in this runtime/);
		await open.end();
		const child = "child-session";
		await runtime.store.createSession({ id: child, workspace, mode: "workspace-write", model: "recording:test", created_at: new Date().toISOString(), parent_session: open.id, parent_call: "call_1_1_1" });
		await runtime.store.endSession(child, "ok", new Date().toISOString());
		await expect(runtime.resumeSession(child)).rejects.toThrow(`session ${child} is a sub-agent of session ${open.id}: resume that session instead`);
	});
});
