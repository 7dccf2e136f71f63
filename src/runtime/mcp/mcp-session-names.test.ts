/**
 * MCP tool names in a real session with the hostile server: a server name that would make names
 * ambiguous is not started (one line naming it) while the other servers' tools work, a tool name
 * with `__` is offered under its hashed name only, and two listed tools that share a name are both
 * withheld with a configuration error naming both — never an internal error that stops the session.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { HOSTILE_SERVER, nodeServer } from "../../providers/mcp/test-support/mcp-servers.js";
import { mcpToolName } from "../../tools/mcp-tool-name.js";
import { callsStep, recordingRequests } from "../test-support/recording-model.js";
import { closeTestRuntime, openTestRuntime, type TestRuntime } from "../test-support/test-runtime.js";
import { approveMcpTools, inspectMcpServers } from "./mcp-approvals.js";
import type { McpServerConfig } from "./mcp-server-config.js";

let t: TestRuntime | undefined;
afterEach(async () => {
	if (t) await closeTestRuntime(t);
	t = undefined;
});

async function setup() {
	t = await openTestRuntime("warden-mcp-names-", { files: { "keep.txt": "keep me" } });
	const workspace = realpathSync(t.workspace);
	const log = (name: string) => join(t!.root, `${name}.jsonl`);
	const server = (name: string, env: Record<string, string> = {}): McpServerConfig => ({
		name,
		transport: nodeServer(HOSTILE_SERVER, [], workspace, { HOSTILE_PHASE: "approve", HOSTILE_LOG: log(name), HOSTILE_FILE: join(workspace, "keep.txt"), ...env }),
		sandbox: false,
		source: `test ${name}`,
	});
	const approve = (config: McpServerConfig, tools: string[]) => approveMcpTools({ store: t!.runtime.store, workspace, home: homedir(), servers: [config], server: config.name, by: "test", tools });
	const calls = (name: string) => (existsSync(log(name)) ? readFileSync(log(name), "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as { tool: string }) : []);
	return { runtime: t.runtime, workspace, server, approve, calls };
}

async function run(session: { send: (input: string, o: { onEvent: (e: AnyWardenEvent) => void }) => Promise<unknown> }): Promise<AnyWardenEvent[]> {
	const events: AnyWardenEvent[] = [];
	await session.send("go", { onEvent: (e) => events.push(e) });
	return events;
}

describe("MCP tool names in a session", () => {
	it("does not start a server named a__b, says why in one line, and the other server's tools still run", async () => {
		const { runtime, workspace, server, approve, calls } = await setup();
		const notes = server("notes", { HOSTILE_ALIAS: "save__echo=tidy" });
		await approve(notes, ["echo", "save__echo"]);
		const ambiguous = server("notes__save");
		const { model, requests } = recordingRequests([
			callsStep({ name: "mcp__notes__save__echo", arguments: { text: "meant for notes__save" } }),
			callsStep({ name: "mcp__notes__echo", arguments: { text: "still works" } }),
			{ text: "done", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, mcpServers: [notes, ambiguous], rules: { allow: ["mcp__notes__*"] } });
		const events = await run(session);
		const offered = (requests[0]!.tools ?? []).map((x) => x.name).filter((n) => n.startsWith("mcp__"));
		expect(offered).toContain(mcpToolName("notes", "save__echo"));
		expect(offered).not.toContain("mcp__notes__save__echo");
		expect(events.filter((e) => e.kind === "tool.invalid")).toHaveLength(1);
		expect(events.filter((e) => e.kind === "tool.completed")).toHaveLength(1);
		expect(calls("notes")).toEqual([{ tool: "echo", arguments: { text: "still works" } }]);
		expect(readFileSync(join(workspace, "keep.txt"), "utf8")).toBe("keep me");
		const record = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "mcp.servers")!;
		const refused = (record.data.servers as { server: string; error?: string }[]).find((s) => s.server === "notes__save")!;
		expect(refused.error).toMatch(/^not started: the server name "notes__save" cannot name its tools unambiguously: it holds "__"/);
		expect(refused.error).not.toContain("\n");
		await session.end();
	});

	it("two listed tools with one name are both withheld as a configuration error naming both; the rest of the server works", async () => {
		const { runtime, workspace, server, approve, calls } = await setup();
		const doubled = server("notes", { HOSTILE_ALIAS: "echo=tidy" });
		await approve(doubled, ["lookup"]);
		const [summary] = await inspectMcpServers({ store: runtime.store, workspace, home: homedir(), servers: [doubled] });
		const echoes = summary!.tools.filter((x) => x.tool === "echo");
		expect(echoes.map((x) => x.status)).toEqual(["collision", "collision"]);
		expect(echoes[0]!.why).toBe(`configuration error: mcp__notes__echo would name both tool "echo" of server notes (test notes) and tool "echo" of server notes (test notes); neither is offered`);
		// Pinned anyway, by name: still not offered, and the session opens.
		await approve(doubled, ["echo"]);
		const { model, requests } = recordingRequests([
			callsStep({ name: "mcp__notes__echo", arguments: { text: "which one?" } }),
			callsStep({ name: "mcp__notes__lookup", arguments: { text: "fine" } }),
			{ text: "done", toolCalls: [] },
		]);
		const session = await runtime.openSession({ workspace, model, mcpServers: [doubled], rules: { allow: ["mcp__notes__*"] } });
		const events = await run(session);
		expect((requests[0]!.tools ?? []).map((x) => x.name).filter((n) => n.startsWith("mcp__"))).toEqual(["mcp__notes__lookup"]);
		expect(events.filter((e) => e.kind === "tool.invalid")).toHaveLength(1);
		expect(calls("notes")).toEqual([{ tool: "lookup", arguments: { text: "fine" } }]);
		expect(readFileSync(join(workspace, "keep.txt"), "utf8")).toBe("keep me");
		const record = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "mcp.servers")!;
		const withheld = (record.data.servers as { withheld: { tool: string; status: string }[] }[])[0]!.withheld.filter((w) => w.tool === "echo");
		expect(withheld.map((w) => w.status)).toEqual(["collision", "collision"]);
		await session.end();
	});
});
