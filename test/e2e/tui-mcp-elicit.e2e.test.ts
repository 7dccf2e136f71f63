/**
 * An MCP server's request for input in the interactive terminal (real pseudo-terminal, scripted
 * model, the npm `server-everything`): the server's message and fields are asked one question at a
 * time on the ask card, and the person's answers are sent — the record names the fields only.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING_SERVER } from "../../src/providers/mcp/test-support/mcp-servers.js";
import { ARM_AFTER_MS } from "../../src/surfaces/tui/arm-delay.js";
import { makeFixture, runCli, writePlan } from "./cli-harness.js";
import { PtyScreen } from "./pty-harness.js";

const open: PtyScreen[] = [];
afterEach(() => {
	for (const s of open.splice(0)) s.kill();
});

/** The fields server-everything asks for, in order, and what the person types for each (empty: its default, or left out). */
const FIELDS: [string, string][] = [
	["name", "Grace Hopper"],
	["check", "no"],
	["firstLine", ""],
	["email", ""],
	["homepage", ""],
	["birthdate", ""],
	["integer", "7"],
	["number", ""],
	["untitledSingleSelectEnum", ""],
	["untitledMultipleSelectEnum", ""],
	["titledSingleSelectEnum", ""],
	["titledMultipleSelectEnum", ""],
	["legacyTitledEnum", ""],
];

describe("warden (the interactive terminal) and an MCP server's request for input", () => {
	it("asks the message, then each field, and sends the answers", async () => {
		const fixture = makeFixture();
		const config = join(fixture.dir, "user.yaml");
		writeFileSync(config, `mcpServers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]\nrules:\n  allow: ["mcp__everything__*"]\n`);
		const at = ["--config", config, "--workspace", fixture.workspace, "--state-dir", fixture.stateDir];
		expect((await runCli(["mcp", "approve", "everything", ...at])).code).toBe(0);
		const plan = writePlan(fixture, [{ tool_calls: [{ name: "mcp__everything__trigger-elicitation-request", arguments: {} }] }, { text: "Thanks." }]);
		const screen = new PtyScreen(["--model", `scripted:${plan}`, ...at], { cols: 200 });
		open.push(screen);
		await screen.waitFor(() => screen.visible().some((row) => row === "›"));
		screen.write("ask me\r");
		await screen.waitFor("MCP server everything asks for input", 30_000);
		expect(screen.visible().join("\n")).toContain("it asks for: name (required), check");
		// Keys typed before an ask is armed are dropped: each answer waits for its card, then for the arming.
		const armed = () => new Promise((resolve) => setTimeout(resolve, ARM_AFTER_MS + 150));
		await armed();
		screen.write("yes\r");
		for (const [field, typed] of FIELDS) {
			await screen.waitFor(() => screen.visible().some((row) => row.includes(`asks: ${field} (`)));
			await armed();
			screen.write(`${typed}\r`);
		}
		await screen.waitFor("Thanks.", 30_000);
		screen.write("\u0004");
		await screen.exited;
		const audit = await runCli(["audit", "list", "--json", "--state-dir", fixture.stateDir]);
		const records = audit.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { kind: string; data: Record<string, unknown> });
		const elicitation = records.find((r) => r.kind === "mcp.elicitation");
		expect(elicitation?.data).toMatchObject({ server: "everything", asked: true, action: "accept" });
		expect(elicitation?.data.fields).toEqual(expect.arrayContaining(["name", "check", "integer"]));
		expect(JSON.stringify(records)).not.toContain("Grace Hopper");
	}, 120_000);
});
