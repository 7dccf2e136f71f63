/**
 * What a session makes of an MCP result that is too big: one over the read limit is cut and
 * tool.completed says `truncated: true`; one over the transport's message limit is a clear "result
 * too large" failure (not "the server went away"), recorded as such.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { HOSTILE_SERVER, nodeServer } from "../../providers/mcp/test-support/mcp-servers.js";
import { callsStep, recordingRequests } from "../test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime, type TestRuntime } from "../test-support/test-runtime.js";
import { approveMcpTools } from "./mcp-approvals.js";
import type { McpServerConfig } from "./mcp-server-config.js";

let t: TestRuntime | undefined;
afterEach(async () => {
	if (t) await closeTestRuntime(t);
	t = undefined;
});

async function runHuge(bytes: number): Promise<{ events: AnyWardenEvent[]; runtime: TestRuntime["runtime"]; session: string }> {
	t = await openTestRuntime("warden-mcp-results-");
	const workspace = realpathSync(t.workspace);
	const server: McpServerConfig = { name: "hostile", transport: nodeServer(HOSTILE_SERVER, [], workspace, { HOSTILE_PHASE: "approve", HOSTILE_HUGE_BYTES: String(bytes) }), sandbox: false, source: "test" };
	await approveMcpTools({ store: t.runtime.store, workspace, home: homedir(), servers: [server], server: "hostile", by: "test", tools: ["huge"] });
	const { model } = recordingRequests([callsStep({ name: "mcp__hostile__huge", arguments: { text: "report" } }), { text: "done", toolCalls: [] }]);
	const session = await t.runtime.openSession({ workspace, model, mcpServers: [server], rules: { allow: ["mcp__hostile__*"] } });
	const events: AnyWardenEvent[] = [];
	await session.send("go", { onEvent: (e) => events.push(e) });
	await session.end();
	return { events, runtime: t.runtime, session: session.id };
}

describe("MCP results that are too big", () => {
	it("a result over the read limit is cut, and tool.completed says truncated", async () => {
		const { events } = await runHuge(3 * 1024 * 1024);
		const completed = events.find((e) => e.kind === "tool.completed");
		expect(completed?.kind === "tool.completed" && completed.payload.truncated).toBe(true);
	});

	it("a result over the transport's message limit is 'result too large', recorded as too_large, not a server that went away", async () => {
		const { events, runtime, session } = await runHuge(11 * 1024 * 1024);
		const failed = events.find((e) => e.kind === "tool.failed");
		const error = failed?.kind === "tool.failed" ? failed.payload.error : "";
		expect(error).toMatch(/^MCP server hostile: result too large: its answer to tools\/call huge is over the 10 MiB \(10485760 bytes\)/);
		expect(error).not.toMatch(/went away/);
		const effect = (await runtime.listAudit({ session })).find((r) => r.kind === "effect" && r.data.effect === "mcp.call");
		expect(effect?.data).toMatchObject({ outcome: "too_large" });
	});
});
