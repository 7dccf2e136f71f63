/**
 * Through the real CLI: a server name that makes MCP tool names ambiguous is a one-line config
 * error, `warden mcp list` warns about two tools that would share a name before any session meets
 * it, and `warden run --on-ask prompt` puts a server's request for input to the person at the
 * pseudo-terminal, one question per field, and the answer is sent (its fields named in the record).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING_SERVER, HOSTILE_SERVER } from "../../src/providers/mcp/test-support/mcp-servers.js";
import { makeFixture, runCli, writePlan } from "./cli-harness.js";
import { PtyScreen } from "./pty-harness.js";

const open: PtyScreen[] = [];
afterEach(() => {
	for (const s of open.splice(0)) s.kill();
});

function userConfig(dir: string, body: string): string {
	const path = join(dir, "user.yaml");
	writeFileSync(path, body);
	return path;
}

const hostile = (name: string, env: string) => `  ${name}:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(HOSTILE_SERVER)}]\n    env: { HOSTILE_PHASE: approve${env} }\n`;

describe("MCP names and elicitation through the CLI (e2e)", () => {
	it("a server named notes__save is refused at config load in one line naming it", async () => {
		const f = makeFixture();
		const config = userConfig(f.dir, `mcpServers:\n${hostile("notes", "")}${hostile("notes__save", "")}`);
		const list = await runCli(["mcp", "list", "--config", config, "--workspace", f.workspace, "--state-dir", f.stateDir]);
		expect(list.code).not.toBe(0);
		expect(list.stderr.trim().split("\n")).toHaveLength(1);
		expect(list.stderr).toMatch(/mcpServers\.notes__save: the server name "notes__save" cannot name its tools unambiguously: it holds "__"/);
	});

	it("warden mcp list warns about two listed tools that would share one name, and marks both", async () => {
		const f = makeFixture();
		const config = userConfig(f.dir, `mcpServers:\n${hostile("notes", ", HOSTILE_ALIAS: echo=tidy")}`);
		const list = await runCli(["mcp", "list", "--config", config, "--workspace", f.workspace, "--state-dir", f.stateDir]);
		expect(list.code).toBe(0);
		expect(list.stdout).toContain('warning: configuration error: mcp__notes__echo would name both tool "echo" of server notes');
		expect(list.stdout.match(/COLLIDES {2}mcp__notes__echo/g)).toHaveLength(2);
		expect(list.stdout).toMatch(/new +mcp__notes__lookup/);
	});

	it("warden run --on-ask prompt asks the person for an elicitation's fields; the answer is sent, its fields named in the record", async () => {
		const f = makeFixture();
		const tool = "trigger-elicitation-request";
		const config = userConfig(f.dir, `mcpServers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]\nrules:\n  allow: ["mcp__everything__*"]\n`);
		const at = ["--config", config, "--workspace", f.workspace, "--state-dir", f.stateDir];
		expect((await runCli(["mcp", "approve", "everything", ...at])).code).toBe(0);
		const plan = writePlan(f, [{ tool_calls: [{ name: `mcp__everything__${tool}`, arguments: {} }] }, { text: "Done." }]);
		const screen = new PtyScreen(["run", "ask me", "--on-ask", "prompt", "--model", `scripted:${plan}`, ...at]);
		open.push(screen);
		const prompts = (s: string) => s.split("answer>").length - 1;
		await screen.waitFor("MCP server everything asks for input", 30_000);
		// One answer per question, each typed once its question is on the screen: yes, a name, no, then defaults.
		const answers = ["yes", "Grace Hopper", "no"];
		for (let asked = 1; asked <= 14; asked++) {
			await screen.waitFor((s) => prompts(s) >= asked, 15_000);
			screen.write(`${answers[asked - 1] ?? ""}\r`);
		}
		expect(await screen.exited).toBe(0);
		expect(screen.text()).toContain("name (string; required)");
		const audit = await runCli(["audit", "list", "--json", "--state-dir", f.stateDir]);
		const records = audit.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { kind: string; data: Record<string, unknown> });
		const elicitation = records.find((r) => r.kind === "mcp.elicitation");
		expect(elicitation?.data).toMatchObject({ server: "everything", asked: true, action: "accept" });
		expect(JSON.stringify(records)).not.toContain("Grace Hopper");
		const result = records.find((r) => r.kind === "tool.outcome");
		expect(result?.data).toMatchObject({ outcome: "completed" });
		// The fields were sent: the record names them (what the server made of the values is covered by mcp-session-elicit.test.ts).
		expect(elicitation?.data.fields).toEqual(expect.arrayContaining(["name", "check", "integer"]));
	});
});
