import { access, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../models/provider.js";
import { ScriptedModel } from "../../models/scripted.js";
import { callsStep, RecordingModel } from "../test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime, type TestRuntime } from "../test-support/test-runtime.js";
import { CATALOGUE_HEADER } from "./skill-projection.js";

const open: TestRuntime[] = [];
afterEach(async () => {
	for (const t of open.splice(0)) await closeTestRuntime(t);
});

const skillText = (name: string, description: string, body: string, extra = "") => `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}\n`;
const DEPLOY_BODY = "# Deploy\nRun scripts/check.sh, then read reference/steps.md.";

async function setup(files: Record<string, string> = {}, user: Record<string, string> = {}): Promise<TestRuntime & { userDir: string }> {
	const t = await openTestRuntime("warden-session-skills-", {
		files: {
			".agents/skills/deploy/SKILL.md": skillText("deploy", "Deploy the service to staging.", DEPLOY_BODY),
			".agents/skills/deploy/scripts/check.sh": "echo ok\n",
			".agents/skills/deploy/reference/steps.md": "step one: build\n",
			...files,
		},
	});
	open.push(t);
	const userDir = join(t.root, "user-skills");
	for (const [path, text] of Object.entries(user)) {
		await mkdir(dirname(join(userDir, path)), { recursive: true });
		await writeFile(join(userDir, path), text);
	}
	return { ...t, userDir };
}

function toolsOffered(events: readonly { kind: string; payload: unknown }[]): number {
	const requested = events.find((e) => e.kind === "model.requested");
	if (!requested) throw new Error("no model.requested event");
	return (requested.payload as { tools: number }).tools;
}

const toolResults = (messages: Message[]) => messages.filter((m) => m.role === "tool").map((m) => m.content);

describe("skills in a session", () => {
	it("projects only the catalogue; activate_skill loads the body and lists the files, which read_file then reads", async () => {
		const t = await setup();
		const model = new RecordingModel([
			callsStep({ name: "activate_skill", arguments: { name: "deploy" } }),
			callsStep({ name: "read_file", arguments: { path: ".agents/skills/deploy/reference/steps.md" } }),
			{ text: "deployed", toolCalls: [] },
		]);
		const session = await t.runtime.openSession({ workspace: t.workspace, model, instructions: false, skills: { userDir: t.userDir } });
		const result = await session.send("deploy it");
		expect(result.status).toBe("completed");
		const first = model.requests[0]!;
		const catalogue = first.find((m) => m.role === "system" && m.content.startsWith(CATALOGUE_HEADER))!;
		expect(catalogue.content).toContain("- deploy (untrusted): Deploy the service to staging.");
		expect(JSON.stringify(first)).not.toContain("Run scripts/check.sh");
		const [activated, read] = toolResults(model.requests[2]!);
		expect(activated).toContain(DEPLOY_BODY);
		expect(activated).toContain("- .agents/skills/deploy/reference/steps.md");
		expect(activated).toContain("- .agents/skills/deploy/scripts/check.sh");
		expect(read).toContain("step one: build");
		const events = await t.runtime.sessionEvents(session.id);
		const event = events.find((e) => e.kind === "skill.activated");
		expect(event?.payload).toMatchObject({ call_id: "call_1_1_1", name: "deploy", source: "workspace", trusted: false, files: 2 });
		const audit = await t.runtime.listAudit({ session: session.id });
		expect(audit.find((r) => r.kind === "session.started")?.data.skills).toMatchObject({ offered: [{ name: "deploy", source: "workspace", trusted: false }] });
		expect(audit.find((r) => r.kind === "skill.activated")).toMatchObject({ call_id: "call_1_1_1", data: { name: "deploy" } });
		await session.end();
	});

	it("labels an untrusted project's skill untrusted data, and the user's own skill trusted", async () => {
		const t = await setup({}, { "notes-style/SKILL.md": skillText("notes-style", "House style for notes.", "Write short lines.") });
		const model = new RecordingModel([callsStep({ name: "activate_skill", arguments: { name: "notes-style" } }), { text: "ok", toolCalls: [] }]);
		const userOnly = await t.runtime.openSession({ workspace: t.workspace, model, instructions: false, skills: { userDir: t.userDir, trusted: true } });
		await userOnly.send("style");
		expect(userOnly.contextLabel.integrity).toBe("trusted");
		const stored = await t.runtime.store.listMessages(userOnly.id);
		const result = stored.find((m) => (m.message as Message).role === "tool")!;
		expect(result.label?.integrity).toBe("trusted");
		await userOnly.end();

		const untrusted = await t.runtime.openSession({ workspace: t.workspace, model: new RecordingModel([callsStep({ name: "activate_skill", arguments: { name: "deploy" } }), { text: "ok", toolCalls: [] }]), instructions: false, skills: { userDir: t.userDir } });
		await untrusted.send("deploy");
		expect(untrusted.contextLabel.integrity).toBe("untrusted");
		const rows = await t.runtime.store.listMessages(untrusted.id);
		expect(rows.find((m) => (m.message as Message).role === "tool")!.label?.integrity).toBe("untrusted");
		await untrusted.end();
	});

	it("allowed-tools narrows: a tool it does not name is denied while the skill is active, and what it names is still the policy's to decide", async () => {
		const t = await setup({ ".agents/skills/reader/SKILL.md": skillText("reader", "Read only.", "Only read.", "allowed-tools: read_file write_file(docs/**) shell(git status)\n"), "docs/a.md": "a\n" });
		const model = new RecordingModel([
			callsStep({ name: "write_file", arguments: { path: "before.txt", content: "x" } }),
			callsStep({ name: "activate_skill", arguments: { name: "reader" } }),
			callsStep(
				{ name: "read_file", arguments: { path: "docs/a.md" } },
				{ name: "write_file", arguments: { path: "src/x.ts", content: "x" } },
				{ name: "write_file", arguments: { path: "docs/b.md", content: "b" } },
				{ name: "shell", arguments: { command: "git status && rm docs/a.md" } },
				{ name: "activate_skill", arguments: { name: "deploy" } },
			),
			{ text: "done", toolCalls: [] },
		]);
		const session = await t.runtime.openSession({ workspace: t.workspace, model, mode: "workspace-write", instructions: false, skills: { userDir: t.userDir }, confirm: async () => false });
		await session.send("work");
		const decided = (await t.runtime.sessionEvents(session.id)).filter((e) => e.kind === "permission.decided").map((e) => e.payload as { call_id: string; decision: string; layer: string; reason: string });
		const byCall = Object.fromEntries(decided.map((d) => [d.call_id, d]));
		expect(byCall.call_1_1_1?.decision).toBe("allow");
		expect(byCall.call_1_3_1?.decision).toBe("allow");
		expect(byCall.call_1_3_2).toMatchObject({ decision: "deny", layer: "run-deny", reason: expect.stringContaining("active skill reader allows only read_file, write_file(docs/**), shell(git status)") });
		expect(byCall.call_1_3_3?.decision).toBe("allow");
		// One sub-command outside the entry is enough: every part of a command must be named.
		expect(byCall.call_1_3_4).toMatchObject({ decision: "deny", layer: "run-deny" });
		expect(byCall.call_1_3_5?.decision).toBe("allow");
		await session.end();
	});

	it("a call proposed in the same step as the activation is narrowed too: it runs after the skill is active", async () => {
		const t = await setup({ ".agents/skills/reader/SKILL.md": skillText("reader", "Read only.", "Only read.", "allowed-tools: read_file\n") });
		const model = new RecordingModel([
			callsStep({ name: "activate_skill", arguments: { name: "reader" } }, { name: "write_file", arguments: { path: "x.txt", content: "x" } }),
			{ text: "done", toolCalls: [] },
		]);
		const session = await t.runtime.openSession({ workspace: t.workspace, model, mode: "workspace-write", instructions: false, skills: { userDir: t.userDir } });
		await session.send("work");
		const decided = (await t.runtime.sessionEvents(session.id)).filter((e) => e.kind === "permission.decided").map((e) => e.payload as { tool: string; decision: string; layer: string });
		expect(decided.map((d) => [d.tool, d.decision, d.layer])).toEqual([
			["activate_skill", "allow", "tool-default"],
			["write_file", "deny", "run-deny"],
		]);
		await session.end();
	});

	it("a sub-agent started while a skill is active is narrowed by its allowed-tools too", async () => {
		const t = await setup({ ".agents/skills/reader/SKILL.md": skillText("reader", "Read only.", "Only read.", "allowed-tools: read_file agent\n") });
		const model = ScriptedModel.fromPlan(
			{
				steps: [
					{ tool_calls: [{ name: "activate_skill", arguments: { name: "reader" } }] },
					{ tool_calls: [{ name: "agent", arguments: { task: "write", steps: [{ tool_calls: [{ name: "write_file", arguments: { path: "child.txt", content: "x" } }] }, { text: "tried" }] } }] },
					{ text: "done" },
				],
			},
			"scripted:skills-child",
		);
		const session = await t.runtime.openSession({ workspace: t.workspace, model, mode: "workspace-write", instructions: false, skills: { userDir: t.userDir } });
		await session.send("delegate");
		await session.end();
		const child = (await t.runtime.listSessions()).find((row) => row.parent_session === session.id)!;
		const decided = (await t.runtime.sessionEvents(child.id)).filter((e) => e.kind === "permission.decided").map((e) => e.payload as { tool: string; decision: string; reason: string });
		expect(decided).toEqual([expect.objectContaining({ tool: "write_file", decision: "deny", reason: expect.stringContaining("active skill reader allows only read_file, agent") })]);
		await expect(access(join(t.workspace, "child.txt"))).rejects.toThrow();
	});

	it("allowed-tools never widens: a tool it names that the mode refuses stays refused", async () => {
		const t = await setup({ ".agents/skills/writer/SKILL.md": skillText("writer", "Writes.", "Write files.", "allowed-tools: write_file shell\n") });
		const model = new RecordingModel([
			callsStep({ name: "activate_skill", arguments: { name: "writer" } }),
			callsStep({ name: "write_file", arguments: { path: "out.txt", content: "x" } }, { name: "shell", arguments: { command: "touch made.txt" } }),
			{ text: "done", toolCalls: [] },
		]);
		const session = await t.runtime.openSession({ workspace: t.workspace, model, mode: "read-only", instructions: false, skills: { userDir: t.userDir } });
		await session.send("write");
		const decided = (await t.runtime.sessionEvents(session.id)).filter((e) => e.kind === "permission.decided").map((e) => e.payload as { call_id: string; decision: string; layer: string });
		expect(decided.filter((d) => d.call_id.startsWith("call_1_2_")).map((d) => [d.decision, d.layer])).toEqual([
			["deny", "read-only-mode"],
			["deny", "read-only-mode"],
		]);
		await session.end();
	});

	it("keeps an active skill's instructions through compaction", async () => {
		// A long reference read after activation: the summary has something to make smaller.
		const t = await setup({ ".agents/skills/deploy/reference/steps.md": `${"step: build and verify the service. ".repeat(200)}\n` });
		const model = new RecordingModel([
			callsStep({ name: "activate_skill", arguments: { name: "deploy" } }),
			callsStep({ name: "read_file", arguments: { path: ".agents/skills/deploy/reference/steps.md" } }),
			{ text: "read", toolCalls: [] },
			{ text: "The user asked to deploy; the skill was read.", toolCalls: [] },
			{ text: "next", toolCalls: [] },
		]);
		const session = await t.runtime.openSession({ workspace: t.workspace, model, instructions: false, skills: { userDir: t.userDir } });
		await session.send("deploy");
		const outcome = await session.compact();
		expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true });
		await session.send("go on");
		const after = model.requests.at(-1)!;
		// The activation's own result was summarised away: the summary carries the body verbatim.
		expect(after.some((m) => m.role === "tool" && m.content.includes(DEPLOY_BODY))).toBe(false);
		const summary = after.find((m) => m.role === "user" && m.content.startsWith("[Context summary 1"))!;
		expect(summary.content).toContain("Active skills");
		expect(summary.content).toContain(DEPLOY_BODY);
		// The catalogue is pinned like the system prompt.
		expect(after.some((m) => m.role === "system" && m.content.startsWith(CATALOGUE_HEADER))).toBe(true);
		const audit = await t.runtime.listAudit({ session: session.id });
		const completed = audit.find((r) => r.kind === "compaction.completed")!;
		expect((completed.data.label as { integrity: string }).integrity).toBe("untrusted");
		await session.end();
	});

	it("a resumed session keeps the skills its earlier run activated: a compaction after the resume still carries the body", async () => {
		const t = await setup({ ".agents/skills/deploy/reference/steps.md": `${"step: build and verify the service. ".repeat(200)}\n` });
		const first = await t.runtime.openSession({
			workspace: t.workspace,
			model: new RecordingModel([callsStep({ name: "activate_skill", arguments: { name: "deploy" } }), callsStep({ name: "read_file", arguments: { path: ".agents/skills/deploy/reference/steps.md" } }), { text: "read", toolCalls: [] }]),
			instructions: false,
			skills: { userDir: t.userDir },
		});
		await first.send("deploy");
		await first.end();
		const model = new RecordingModel([{ text: "Deploy was started; the reference was read.", toolCalls: [] }, { text: "next", toolCalls: [] }]);
		const resumed = await t.runtime.resumeSession(first.id, { model, instructions: false, skills: { userDir: t.userDir } });
		expect(await resumed.compact()).toMatchObject({ ok: true });
		await resumed.send("go on");
		const summary = model.requests.at(-1)!.find((m) => m.role === "user" && m.content.startsWith("[Context summary"))!;
		expect(summary.content).toContain(DEPLOY_BODY);
		await resumed.end();
	});

	it("offers no activate_skill tool and no catalogue where there is no skill, or when the host turns skills off", async () => {
		const t = await openTestRuntime("warden-session-noskills-");
		open.push(t);
		const model = new RecordingModel([{ text: "hi", toolCalls: [] }]);
		const session = await t.runtime.openSession({ workspace: t.workspace, model, instructions: false, skills: { userDir: join(t.root, "none") } });
		await session.send("hello");
		expect(model.requests[0]!.some((m) => m.content.startsWith(CATALOGUE_HEADER))).toBe(false);
		const tools = toolsOffered(await t.runtime.sessionEvents(session.id));
		await session.end();
		const t2 = await setup();
		const off = await t2.runtime.openSession({ workspace: t2.workspace, model: new RecordingModel([{ text: "hi", toolCalls: [] }]), instructions: false, skills: false });
		await off.send("hello");
		expect(toolsOffered(await t2.runtime.sessionEvents(off.id))).toBe(tools);
		const on = await t2.runtime.openSession({ workspace: t2.workspace, model: new RecordingModel([{ text: "hi", toolCalls: [] }]), instructions: false, skills: { userDir: t2.userDir } });
		await on.send("hello");
		// With a skill to offer, activate_skill is the one tool more.
		expect(toolsOffered(await t2.runtime.sessionEvents(on.id))).toBe(tools + 1);
		await on.end();
		await off.end();
	});
});
