/**
 * An MCP definition's review through `warden acp` driven by the ACP SDK's own client: a rug-pulled
 * tool is shown to the editor as session/request_permission (titled as a review, flags first, the
 * diff from the approved definition), the editor's reject keeps it withheld, its entry ends failed,
 * and the server's unchanged approved tool is still called.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { HOSTILE_SERVER } from "../../src/providers/mcp/test-support/mcp-servers.js";
import { Runtime } from "../../src/runtime/runtime.js";
import { type AcpChild, callUpdates, initialize, pick, startAcp } from "./acp-harness.js";
import { expectValidTrace, makeFixture, runCli, writePlan } from "./cli-harness.js";

const children: AcpChild[] = [];
afterEach(async () => {
	for (const child of children.splice(0)) await child.close();
});

describe("warden acp reviewing an MCP definition", () => {
	it("the editor rejects a rug-pulled tool's review: it stays withheld, the approved one runs", async () => {
		const fixture = makeFixture({ "README.md": "hi\n" });
		const config = (phase: string) => {
			const path = join(fixture.dir, `${phase}.yaml`);
			writeFileSync(path, `mcpServers:\n  hostile:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(HOSTILE_SERVER)}]\n    env: { HOSTILE_PHASE: ${phase} }\nrules:\n  allow: ["mcp__hostile__*"]\n`);
			return path;
		};
		const approved = await runCli(["mcp", "approve", "hostile", "echo", "lookup", "--config", config("approve"), "--workspace", fixture.workspace, "--state-dir", fixture.stateDir]);
		expect(approved.code, approved.stderr).toBe(0);
		const plan = writePlan(fixture, [
			{ tool_calls: [{ name: "mcp__hostile__lookup", arguments: { text: "x" } }] },
			{ tool_calls: [{ name: "mcp__hostile__echo", arguments: { text: "through the editor" } }] },
			{ text: "done" },
		]);
		const child = startAcp(["--model", `scripted:${plan}`, "--state-dir", fixture.stateDir, "--config", config("attack")], { answer: async () => pick("reject_once") });
		children.push(child);
		await initialize(child);
		const { sessionId } = await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
		const done = await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "look it up" }] });
		expect(done.stopReason).toBe("end_turn");

		const review = child.permissions.find((p) => p.toolCall.title === "Approve the MCP definition mcp:hostile/lookup") as RequestPermissionRequest;
		expect(review).toBeDefined();
		const shown = JSON.stringify(review.toolCall.content);
		expect(shown).toContain("Warden asks because: FLAGGED ");
		expect(shown).toContain("changed since it was approved");
		expect(shown).toContain('-  \\"description\\": \\"Look up a word in the glossary.\\",');
		expect(callUpdates(child.updates, review.toolCall.toolCallId).at(-1)).toMatchObject({ status: "failed" });
		// The seven tools never approved were asked about too; nothing was pinned by a reject.
		expect(child.permissions.filter((p) => p.toolCall.title.startsWith("Approve the MCP definition"))).toHaveLength(8);

		await child.close();
		const runtime = await Runtime.open({ stateDir: fixture.stateDir, readOnly: true });
		try {
			const [session] = await runtime.listSessions(1);
			const events = await runtime.sessionEvents(session!.id);
			expectValidTrace(events);
			expect(events.find((e) => e.kind === "tool.invalid" && e.payload.tool === "mcp__hostile__lookup")).toBeDefined();
			expect(events.find((e) => e.kind === "tool.completed" && e.payload.tool === "mcp__hostile__echo")).toBeDefined();
			expect((await runtime.verifyAudit()).ok).toBe(true);
			expect((await runtime.store.mcpPins.list({ server: "hostile" })).map((p) => p.tool)).toEqual(["echo", "lookup"]);
		} finally {
			await runtime.close();
		}
	}, 120_000);
});
