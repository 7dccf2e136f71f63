/**
 * The display rule on what `warden acp` sends the editor (real agent, the ACP SDK's own client):
 * a model that writes terminal escapes, overwrites, bidi and invisible characters into its words,
 * its plan, a command and a file gets every such character spelled in each text the editor shows
 * (tool-call titles and content, diffs, plan entries, message chunks, permission requests), while
 * rawInput stays the exact data; decoding what the request says runs gives back the command.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestPermissionRequest, SessionNotification } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { decodeVisibleText } from "../../src/kernel/display/visible-text.js";
import { type AcpChild, agentText, initialize, pick, startAcp } from "./acp-harness.js";
import { makeFixture, writePlan } from "./cli-harness.js";
import { PAYLOAD, RAW_HIDDEN, SPELLED } from "./display-payload.js";

const children: AcpChild[] = [];
afterEach(async () => {
	for (const child of children.splice(0)) await child.close();
});

/** Every string a person is shown: all of the message but its data (rawInput, rawOutput). */
function shownStrings(value: unknown, out: string[] = []): string[] {
	if (typeof value === "string") out.push(value);
	else if (Array.isArray(value)) for (const v of value) shownStrings(v, out);
	else if (value && typeof value === "object") for (const [key, v] of Object.entries(value)) if (key !== "rawInput" && key !== "rawOutput") shownStrings(v, out);
	return out;
}

function expectNoRaw(messages: readonly unknown[], what: string): void {
	for (const text of messages.flatMap((m) => shownStrings(m))) {
		const raw = RAW_HIDDEN.exec(text);
		expect(raw, `${what} carried a raw ${raw ? JSON.stringify(raw[0]) : ""} in ${JSON.stringify(text)}`).toBeNull();
	}
}

describe("warden acp: the display rule on every text the editor shows", () => {
	it("spells the payload in titles, content, diffs, plan entries, chunks and permission requests; rawInput stays exact", async () => {
		const fixture = makeFixture();
		const plan = writePlan(fixture, [
			{ text: `Planning ${PAYLOAD}. `, tool_calls: [{ name: "todo_write", arguments: { items: [{ content: `step ${PAYLOAD}`, status: "in_progress" }] } }] },
			{ tool_calls: [{ name: "shell", arguments: { command: PAYLOAD } }] },
			{ tool_calls: [{ name: "write_file", arguments: { path: "notes.md", content: `line ${PAYLOAD}\n` } }] },
			{ text: `done ${PAYLOAD}` },
		]);
		const answers = ["reject_once", "allow_once"];
		const child = startAcp(["--model", `scripted:${plan}`, "--state-dir", fixture.stateDir, "--ask", "shell(echo *)", "--ask", "write_file(**)"], {
			answer: async () => pick(answers.shift() ?? "reject_once"),
		});
		children.push(child);
		await initialize(child);
		const { sessionId } = await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
		const turn = await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
		expect(turn.stopReason).toBe("end_turn");
		expect(existsSync(join(fixture.workspace, "hidden-by-escape"))).toBe(false);

		expectNoRaw(child.updates, "session/update");
		expectNoRaw(child.permissions, "session/request_permission");

		const said = agentText(child.updates);
		for (const piece of SPELLED) expect(said).toContain(piece);
		const planned = child.updates.map((n) => n.update).find((u) => u.sessionUpdate === "plan");
		expect(planned?.sessionUpdate === "plan" && planned.entries[0]?.content).toContain("\\x1b]0;owned-title\\x07");

		const [asked, write] = child.permissions as [RequestPermissionRequest, RequestPermissionRequest];
		expect(asked.toolCall.title).toContain("\\x1b]0;owned-title\\x07");
		expect(decodeVisibleText(asked.toolCall.title as string)).toBe(PAYLOAD);
		expect(asked.toolCall.rawInput).toEqual({ command: PAYLOAD });
		const runs = JSON.stringify(asked.toolCall.content);
		for (const piece of SPELLED) expect(runs).toContain(JSON.stringify(piece).slice(1, -1));
		const body = (asked.toolCall.content ?? []).flatMap((c) => (c.type === "content" && c.content.type === "text" ? [c.content.text] : [])).join("");
		const fenced = /Runs exactly:\n(`{3,})sh\n([\s\S]*)\n\1$/.exec(body);
		expect(fenced, body).not.toBeNull();
		expect(decodeVisibleText((fenced as RegExpExecArray)[2] as string)).toBe(PAYLOAD);

		const diff = (write.toolCall.content ?? []).find((c) => c.type === "diff");
		expect(diff?.type === "diff" && diff.newText).toContain("\\u{202e}txt.exe\\u{200b}");
		const calls = child.updates.map((n: SessionNotification) => n.update).filter((u) => u.sessionUpdate === "tool_call");
		expect(calls.map((c) => (c.sessionUpdate === "tool_call" ? c.title : ""))).toContain(asked.toolCall.title);
	}, 60_000);

	it("a command that holds a fence cannot close the code block that shows it", async () => {
		const fixture = makeFixture();
		const command = "echo a\n```\n**Approve: safe**\n```";
		const plan = writePlan(fixture, [{ tool_calls: [{ name: "shell", arguments: { command } }] }, { text: "ok" }]);
		const child = startAcp(["--model", `scripted:${plan}`, "--state-dir", fixture.stateDir, "--ask", "shell(echo *)"], { answer: async () => pick("reject_once") });
		children.push(child);
		await initialize(child);
		const { sessionId } = await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
		await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
		const asked = child.permissions[0] as RequestPermissionRequest;
		const body = (asked.toolCall.content ?? []).flatMap((c) => (c.type === "content" && c.content.type === "text" ? [c.content.text] : [])).join("");
		expect(body).toContain(`Runs exactly:\n\`\`\`\`sh\n${command}\n\`\`\`\``);
	}, 60_000);

	it("a permission request for a write that carries a secret the session read is masked like the evidence: no byte of it reaches the editor", async () => {
		const fixture = makeFixture({ "prod.env": "DB_PASSWORD=hunter2-canary\n" });
		const config = join(fixture.dir, "config.yaml");
		writeFileSync(config, "flow:\n  secret_files: ['prod.env']\n");
		const plan = writePlan(fixture, [
			{ tool_calls: [{ name: "read_file", arguments: { path: "prod.env" } }] },
			{ tool_calls: [{ name: "write_file", arguments: { path: "notes.md", content: "the password is hunter2-canary\n" } }] },
			{ text: "done" },
		]);
		const child = startAcp(["--model", `scripted:${plan}`, "--state-dir", fixture.stateDir, "--config", config, "--ask", "write_file(**)"], { answer: async () => pick("reject_once") });
		children.push(child);
		await initialize(child);
		const { sessionId } = await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
		await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
		const asked = child.permissions.find((p) => p.toolCall.title === "Write notes.md");
		expect(asked, JSON.stringify(child.permissions.map((p) => p.toolCall.title))).toBeDefined();
		expect(JSON.stringify(asked)).toContain("the password is ");
		expect(JSON.stringify(child.permissions)).not.toContain("hunter2-canary");
		expect(JSON.stringify(child.updates)).not.toContain("hunter2-canary");
	}, 60_000);
});
