/**
 * An MCP server's request for input through `warden acp`: a client that shows forms
 * (`elicitation.form`) gets `elicitation/create` in form mode for the session, and its answer
 * reaches the server; a client that does not is never asked, and the request is declined.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CreateElicitationRequest } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { EVERYTHING_SERVER } from "../../src/providers/mcp/test-support/mcp-servers.js";
import { Runtime } from "../../src/runtime/runtime.js";
import { type AcpChild, initialize, startAcp } from "./acp-harness.js";
import { makeFixture, runCli, writePlan } from "./cli-harness.js";

const children: AcpChild[] = [];
afterEach(async () => {
	for (const child of children.splice(0)) await child.close();
});

const TOOL = "trigger-elicitation-request";

async function elicitationRecord(stateDir: string): Promise<Record<string, unknown> | undefined> {
	const runtime = await Runtime.open({ stateDir, readOnly: true });
	try {
		const [session] = await runtime.listSessions(1);
		return (await runtime.listAudit({ session: session!.id })).find((r) => r.kind === "mcp.elicitation")?.data;
	} finally {
		await runtime.close();
	}
}

async function runWith(form: boolean): Promise<{ asked: CreateElicitationRequest[]; record: Record<string, unknown> | undefined }> {
	const fixture = makeFixture();
	const config = join(fixture.dir, "user.yaml");
	writeFileSync(config, `mcpServers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]\nrules:\n  allow: ["mcp__everything__*"]\n`);
	const approved = await runCli(["mcp", "approve", "everything", "--config", config, "--workspace", fixture.workspace, "--state-dir", fixture.stateDir]);
	expect(approved.code, approved.stderr).toBe(0);
	const plan = writePlan(fixture, [{ tool_calls: [{ name: `mcp__everything__${TOOL}`, arguments: {} }] }, { text: "done" }]);
	const asked: CreateElicitationRequest[] = [];
	const child = startAcp(["--model", `scripted:${plan}`, "--state-dir", fixture.stateDir, "--config", config], {
		elicit: async (request) => {
			asked.push(request);
			return { action: "accept", content: { name: "Ada Lovelace", check: true } };
		},
	});
	children.push(child);
	await initialize(child, form ? { elicitation: { form: {} } } : {});
	const { sessionId } = await child.connection.agent.request("session/new", { cwd: fixture.workspace, mcpServers: [] });
	const done = await child.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "ask me" }] });
	expect(done.stopReason).toBe("end_turn");
	for (const request of asked) expect(request).toMatchObject({ sessionId, mode: "form" });
	await child.close();
	children.splice(0);
	return { asked, record: await elicitationRecord(fixture.stateDir) };
}

describe("warden acp and an MCP server's request for input", () => {
	it("a client that shows forms is asked with elicitation/create, and its answer is sent", async () => {
		const { asked, record } = await runWith(true);
		expect(asked).toHaveLength(1);
		expect(asked[0]!.message).toMatch(/^MCP server everything asks: Please provide inputs/);
		expect(Object.keys((asked[0] as { requestedSchema: { properties: object } }).requestedSchema.properties)).toContain("name");
		expect(record).toMatchObject({ server: "everything", asked: true, action: "accept", fields: ["name", "check"] });
	});

	it("a client that does not show forms is never asked: the request is declined", async () => {
		const { asked, record } = await runWith(false);
		expect(asked).toHaveLength(0);
		expect(record).toMatchObject({ server: "everything", asked: false, action: "decline" });
	});
});
