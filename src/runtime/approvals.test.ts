import { createHash } from "node:crypto";
import { mkdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalAnswer } from "../kernel/approval/approval-types.js";
import type { AnyWardenEvent, EventKind, EventPayloads } from "../kernel/evidence/event-types.js";
import type { Runtime } from "./runtime.js";
import type { ConfirmationRequest } from "./session-options.js";
import { callKinds, eventValidator, expectSoundEvidence } from "./test-support/evidence-checks.js";
import { callsStep, RecordingModel } from "./test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime } from "./test-support/test-runtime.js";

const validate = eventValidator(JSON.parse(await readFile(new URL("../../schemas/events.v1.json", import.meta.url), "utf8")) as object);

let root: string;
let workspace: string;
let runtime: Runtime;

beforeEach(async () => {
	({ root, workspace, runtime } = await openTestRuntime("warden-approvals-", { files: { "notes.md": "remember the milk\n" } }));
});

afterEach(() => closeTestRuntime({ root, runtime }));

const shellCall = (command: string) => ({ name: "shell", arguments: { command } });
/** In the workspace-write sandbox a plain `touch` runs unasked; these tests need a command that asks. */
const TOUCH_ASKS = ["shell(touch *)"];
const editCall = (old: string, next: string, path = "notes.md") => ({ name: "edit_file", arguments: { path, old, new: next } });
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function exists(path: string): Promise<boolean> {
	return stat(path).then(
		() => true,
		() => false,
	);
}

/** A confirm callback answering from a list, keeping each request it was shown. */
function answering(...answers: ApprovalAnswer[]): { requests: ConfirmationRequest[]; confirm: (r: ConfirmationRequest) => Promise<ApprovalAnswer> } {
	const requests: ConfirmationRequest[] = [];
	return {
		requests,
		confirm: async (request) => {
			requests.push(request);
			const answer = answers.shift();
			if (answer === undefined) throw new Error("asked more often than the test expected");
			return answer;
		},
	};
}

function payloads<K extends EventKind>(events: readonly AnyWardenEvent[], kind: K): EventPayloads[K][] {
	return events.filter((e) => e.kind === kind).map((e) => e.payload as EventPayloads[K]);
}

async function auditKinds(sessionId: string): Promise<string[]> {
	return (await runtime.listAudit({ session: sessionId })).map((r) => r.kind).filter((k) => k.startsWith("approval."));
}

/** Runs one turn of one step in a fresh session and returns the session id and its sound events. */
async function runOnce(calls: { name: string; arguments: unknown }[], options: { confirm?: (r: ConfirmationRequest) => Promise<ApprovalAnswer>; ask?: string[] } = {}) {
	const model = new RecordingModel([callsStep(...calls)]);
	const session = await runtime.openSession({
		workspace,
		model,
		...(options.confirm ? { confirm: options.confirm } : {}),
		rules: { ask: [...TOUCH_ASKS, ...(options.ask ?? [])] },
	});
	const result = await session.send("go");
	const events = await expectSoundEvidence(runtime, session.id, validate);
	await session.end();
	return { id: session.id, result, events, model };
}

describe("the pending approval request", () => {
	it("shows the canonical resource, the exact arguments, their digest, the target's digest and the diff", async () => {
		const host = answering({ kind: "deny" });
		await runOnce([editCall("milk", "bread", `${workspace}/notes.md`)], { confirm: host.confirm, ask: ["edit_file"] });
		const [request] = host.requests;
		expect(request).toMatchObject({
			tool: "edit_file",
			resource: "notes.md",
			arguments: { path: `${workspace}/notes.md`, old: "milk", new: "bread" },
			argumentsDigest: sha256(JSON.stringify({ new: "bread", old: "milk", path: `${workspace}/notes.md` })),
			targetDigest: sha256("remember the milk\n"),
			decision: { decision: "ask", layer: "host-rule" },
		});
		expect(request!.requestId).toMatch(/^approval_/);
		expect(request!.diff).toContain("-remember the milk");
		expect(request!.diff).toContain("+remember the bread");
		expect(await readFile(join(workspace, "notes.md"), "utf8")).toBe("remember the milk\n");
	});

	it("shows a shell call by its normalized command, digested without the workspace", async () => {
		const host = answering(false);
		await runOnce([shellCall("env FOO=1 touch   made.txt")], { confirm: host.confirm });
		expect(host.requests[0]).toMatchObject({ resource: "touch made.txt", targetDigest: sha256("command\0touch made.txt") });
		expect(host.requests[0]!.diff).toBeUndefined();
	});
});

describe("allow once: a one-use lease bound to the exact call", () => {
	it("runs the approved call, and records the lease granted and consumed", async () => {
		const run = await runOnce([editCall("milk", "bread")], { confirm: answering({ kind: "allow_once" }).confirm, ask: ["edit_file"] });
		expect(run.result.toolCalls).toMatchObject({ completed: 1 });
		expect(await readFile(join(workspace, "notes.md"), "utf8")).toBe("remember the bread\n");
		const [confirmed] = payloads(run.events, "permission.confirmed");
		expect(confirmed).toMatchObject({ approved: true, response: "allow_once", lease: expect.stringMatching(/^lease_/) });
		expect(await auditKinds(run.id)).toEqual(["approval.granted", "approval.consumed"]);
		const granted = (await runtime.listAudit({ session: run.id })).find((r) => r.kind === "approval.granted")!;
		expect(granted.data).toMatchObject({ lease: confirmed!.lease, target_digest: sha256("remember the milk\n") });
	});

	it("is invalid when another call of the same step changed the file between approval and dispatch", async () => {
		const host = answering({ kind: "allow_once" }, { kind: "allow_once" });
		const run = await runOnce([editCall("milk", "bread"), editCall("remember", "forget")], { confirm: host.confirm, ask: ["edit_file"] });
		// Both were approved against the same content; the first one's edit made the second one's approval stale.
		expect(host.requests.map((r) => r.targetDigest)).toEqual([sha256("remember the milk\n"), sha256("remember the milk\n")]);
		expect(await readFile(join(workspace, "notes.md"), "utf8")).toBe("remember the bread\n");
		expect(run.result.toolCalls).toMatchObject({ completed: 1, cancelled: 1 });
		expect(callKinds(run.events, "call_1_1_2")).toEqual(["tool.proposed", "permission.decided", "ask.opened", "ask.answered", "permission.confirmed", "tool.cancelled"]);
		expect(payloads(run.events, "tool.cancelled")).toEqual([
			{ call_id: "call_1_1_2", tool: "edit_file", reason: "approval lease no longer matches: target changed" },
		]);
		expect(await auditKinds(run.id)).toEqual(["approval.granted", "approval.granted", "approval.consumed", "approval.invalid"]);
		const [first, second] = payloads(run.events, "permission.confirmed").map((p) => p.lease);
		expect(first).not.toBe(second);
	});

	it("is refused when the arguments differ from the ones approved", async () => {
		const run = await runOnce([{ name: "write_file", arguments: { path: "notes.md", content: "shown\n" } }], {
			ask: ["write_file"],
			confirm: async (request) => {
				// A host (or anything holding the request) that edits the arguments after seeing them does not get them run.
				(request.arguments as { content: string }).content = "something else\n";
				return { kind: "allow_once" };
			},
		});
		expect(await readFile(join(workspace, "notes.md"), "utf8")).toBe("remember the milk\n");
		expect(payloads(run.events, "tool.cancelled")).toEqual([
			{ call_id: "call_1_1_1", tool: "write_file", reason: "approval lease no longer matches: arguments changed" },
		]);
		expect(await auditKinds(run.id)).toEqual(["approval.granted", "approval.invalid"]);
	});

	it("grants nothing that lasts: the same call in the next step is asked about again", async () => {
		const host = answering({ kind: "allow_once" }, { kind: "deny" });
		const model = new RecordingModel([callsStep(shellCall("touch a.txt")), callsStep(shellCall("touch a.txt"))]);
		const session = await runtime.openSession({ workspace, model, confirm: host.confirm, rules: { ask: TOUCH_ASKS } });
		const result = await session.send("twice");
		expect(host.requests.map((r) => r.callId)).toEqual(["call_1_1_1", "call_1_2_1"]);
		expect(result.toolCalls).toMatchObject({ completed: 1, cancelled: 1 });
		await expectSoundEvidence(runtime, session.id, validate);
		expect(await runtime.listApprovedRules()).toEqual([]);
	});
});

describe("always allow and always deny: exact rules for the workspace", () => {
	it("persists an allow that later sessions load, matching the identical call with an env prefix or an absolute program path", async () => {
		const first = await runOnce([shellCall("touch made.txt")], { confirm: answering({ kind: "always_allow", by: "alice" }).confirm });
		const [confirmed] = payloads(first.events, "permission.confirmed");
		expect(confirmed).toMatchObject({ approved: true, response: "always_allow", rule_ids: [1] });
		expect(await runtime.listApprovedRules({ workspace })).toMatchObject([
			{ id: 1, tool: "shell", pattern: "touch made.txt", outcome: "allow", created_by: "alice", session: first.id },
		]);
		expect(await auditKinds(first.id)).toEqual(["approval.rule_added", "approval.granted", "approval.consumed"]);

		// No host to ask: only the persisted rule can admit these.
		for (const command of ["FOO=1 touch made.txt", "/usr/bin/env touch made.txt", "/usr/bin/touch made.txt"]) {
			const later = await runOnce([shellCall(command)]);
			expect(payloads(later.events, "permission.decided")).toMatchObject([
				{ decision: "allow", layer: "host-rule", rule: "shell(touch made.txt)" },
			]);
			expect(later.result.toolCalls).toMatchObject({ completed: 1 });
			const started = (await runtime.listAudit({ session: later.id })).find((r) => r.kind === "session.started")!;
			expect(started.data.rules).toContainEqual({ text: "shell(touch made.txt)", outcome: "allow", source: "approved rule #1" });
		}
		// Exact: a different file is still asked about, and without a host refused.
		const other = await runOnce([shellCall("touch other.txt")]);
		expect(payloads(other.events, "permission.decided")).toMatchObject([{ decision: "ask" }]);
		expect(await exists(join(workspace, "other.txt"))).toBe(false);
	});

	it("matches a file rule through an absolute path, and applies within the same session at once", async () => {
		const host = answering({ kind: "always_allow" });
		const model = new RecordingModel([
			callsStep({ name: "write_file", arguments: { path: "notes.md", content: "one\n" } }),
			callsStep({ name: "write_file", arguments: { path: `${workspace}/./notes.md`, content: "two\n" } }),
		]);
		const session = await runtime.openSession({ workspace, model, confirm: host.confirm, rules: { ask: ["write_file"] } });
		await session.send("write twice");
		expect(host.requests).toHaveLength(1);
		expect(await readFile(join(workspace, "notes.md"), "utf8")).toBe("two\n");
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(payloads(events, "permission.decided").map((d) => [d.decision, d.rule])).toEqual([
			["ask", "write_file"],
			["allow", "write_file(notes.md)"],
		]);
		await session.end();
		// A later session with the same ask rule: the approved allow is placed ahead of it.
		const later = await runOnce([{ name: "write_file", arguments: { path: join(workspace, "notes.md"), content: "three\n" } }], { ask: ["write_file"] });
		expect(later.result.toolCalls).toMatchObject({ completed: 1 });
	});

	it("persists a deny that refuses the identical call in later sessions without asking", async () => {
		const first = await runOnce([shellCall("touch bad.txt")], { confirm: answering({ kind: "always_deny" }).confirm });
		expect(payloads(first.events, "permission.confirmed")).toMatchObject([{ approved: false, response: "always_deny", rule_ids: [1] }]);
		expect(callKinds(first.events, "call_1_1_1").at(-1)).toBe("tool.cancelled");
		expect(await auditKinds(first.id)).toEqual(["approval.rule_added"]);

		const host = answering({ kind: "allow_once" });
		const later = await runOnce([shellCall("nice touch bad.txt")], { confirm: host.confirm });
		expect(host.requests).toEqual([]);
		expect(payloads(later.events, "permission.decided")).toMatchObject([{ decision: "deny", layer: "host-rule", rule: "shell(touch bad.txt)" }]);
		expect(await exists(join(workspace, "bad.txt"))).toBe(false);
	});

	it("stops applying once revoked: the revocation is kept and audited, and the call asks again", async () => {
		await runOnce([shellCall("touch made.txt")], { confirm: answering({ kind: "always_allow" }).confirm });
		const revoked = await runtime.revokeApprovedRule(1, "bob");
		expect(revoked).toMatchObject({ id: 1, revoked_by: "bob", revoked_at: expect.any(String) });
		expect(await runtime.listApprovedRules()).toEqual([]);
		expect(await runtime.listApprovedRules({ includeRevoked: true })).toMatchObject([{ id: 1, revoked_by: "bob" }]);
		const audit = await runtime.listAudit({ session: "host" });
		expect(audit.map((r) => [r.kind, r.data.rule_id])).toEqual([["approval.rule_revoked", 1]]);
		await expect(runtime.revokeApprovedRule(1)).rejects.toThrow(/already revoked/);

		const later = await runOnce([shellCall("touch made.txt")], { confirm: answering(false).confirm });
		expect(payloads(later.events, "permission.decided")).toMatchObject([{ decision: "ask" }]);
		expect(await runtime.verifyAudit()).toMatchObject({ ok: true });
	});

	it("is scoped to the workspace it was given in", async () => {
		await runOnce([shellCall("touch made.txt")], { confirm: answering({ kind: "always_allow" }).confirm });
		const elsewhere = join(root, "other-ws");
		await mkdir(elsewhere);
		const session = await runtime.openSession({ workspace: elsewhere, model: new RecordingModel([callsStep(shellCall("touch made.txt"))]), rules: { ask: TOUCH_ASKS } });
		await session.send("go");
		const events = await expectSoundEvidence(runtime, session.id, validate);
		expect(payloads(events, "permission.decided")).toMatchObject([{ decision: "ask" }]);
		expect(await exists(join(elsewhere, "made.txt"))).toBe(false);
	});

	it("never persists a pattern: an allow that no exact rule could express runs once and is not kept", async () => {
		const run = await runOnce([shellCall("touch 'a*b.txt'")], { confirm: answering({ kind: "always_allow" }).confirm });
		const [confirmed] = payloads(run.events, "permission.confirmed");
		expect(confirmed).toMatchObject({ approved: true, response: "always_allow" });
		expect(confirmed!.rule_ids).toBeUndefined();
		expect(await runtime.listApprovedRules()).toEqual([]);
		const record = (await runtime.listAudit({ session: run.id })).find((r) => r.kind === "permission.confirmed")!;
		expect(record.data.rule_not_persisted).toMatch(/glob characters/);
	});

	it("persists one exact rule per sub-command that asked", async () => {
		await runOnce([shellCall("ls && touch one.txt && touch two.txt")], { confirm: answering({ kind: "always_allow" }).confirm });
		expect((await runtime.listApprovedRules()).map((r) => r.pattern)).toEqual(["touch one.txt", "touch two.txt"]);
		const later = await runOnce([shellCall("touch two.txt && touch one.txt")]);
		expect(later.result.toolCalls).toMatchObject({ completed: 1 });
	});
});
