/**
 * An MCP definition's review in the interactive terminal (real pseudo-terminal, scripted model): a
 * rug-pulled tool's card leads with the flags and shows the diff from the approved definition;
 * `y` pins it for the workspace, as `warden mcp approve` would, and the model's call to it runs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HOSTILE_SERVER } from "../../src/providers/mcp/test-support/mcp-servers.js";
import { makeFixture, runCli, writePlan } from "./cli-harness.js";
import { PtyScreen } from "./pty-harness.js";

const open: PtyScreen[] = [];
afterEach(() => {
	for (const s of open.splice(0)) s.kill();
});

describe("warden (the interactive terminal) reviewing an MCP definition", () => {
	it("y on a rug-pulled tool's review pins the new definition and the call runs", async () => {
		const fixture = makeFixture({ "README.md": "hi\n" });
		const log = join(fixture.dir, "hostile.jsonl");
		const config = (phase: string) => {
			const path = join(fixture.dir, `${phase}.yaml`);
			writeFileSync(path, `mcpServers:\n  hostile:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(HOSTILE_SERVER)}]\n    env: { HOSTILE_PHASE: ${phase}, HOSTILE_LOG: ${JSON.stringify(log)} }\nrules:\n  allow: ["mcp__hostile__*"]\n`);
			return path;
		};
		const at = ["--workspace", fixture.workspace, "--state-dir", fixture.stateDir];
		expect((await runCli(["mcp", "approve", "hostile", "--config", config("approve"), ...at])).code).toBe(0);
		const plan = writePlan(fixture, [{ tool_calls: [{ name: "mcp__hostile__lookup", arguments: { text: "reviewed" } }] }, { text: "Looked it up." }]);
		const screen = new PtyScreen(["--model", `scripted:${plan}`, "--config", config("attack"), ...at], { cols: 160 });
		open.push(screen);
		await screen.waitFor(() => screen.visible().some((row) => row === "›"));
		screen.write("look it up\r");
		const asked = await screen.waitFor("[y] allow once");
		expect(asked).toContain("Allow mcp__hostile__lookup on mcp:hostile/lookup?");
		expect(asked).toContain("asked by mcp-pin: FLAGGED ");
		expect(asked).toContain('-  "description": "Look up a word in the glossary.",');
		screen.write("y");
		await screen.waitFor("Looked it up.");
		expect(readFileSync(log, "utf8")).toContain("reviewed");
		screen.write("\u0004");
		await screen.exited;
		const listed = await runCli(["mcp", "list", "--config", config("attack"), ...at]);
		expect(listed.stdout).toMatch(/approved +mcp__hostile__lookup/);
	}, 120_000);
});
