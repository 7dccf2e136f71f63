/**
 * What the runners do with a task's MCP servers. The full runner pins the tools the task says a
 * human approved (as the server listed them then) before the session opens, and checks that each
 * `unknown_effect` call's operation was settled `unknown`. The baselines are a naive MCP client:
 * every listed tool callable as `mcp__<server>__<tool>`, whatever it says about itself.
 */
import { McpServerSet } from "../../providers/mcp/mcp-server-set.js";
import { approveMcpTools } from "../../runtime/mcp/mcp-approvals.js";
import { mcpReadToolRow } from "../../tools/mcp-read-tools.js";
import type { McpServerConfig } from "../../runtime/mcp/mcp-server-config.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { Store } from "../../store/store.js";
import type { TaskDirs } from "./fixture.js";
import type { PlainResult } from "./plain-tools.js";
import { mcpServerConfig } from "./task-mcp.js";
import type { EvalTask } from "./task-types.js";

/** Baseline calls end after this long, as their shell commands do. */
const PLAIN_TIMEOUT_MS = 10_000;

/** Pins the approved tools and returns the servers the session starts; undefined without any. */
export async function approveTaskMcp(task: EvalTask, dirs: TaskDirs, runtime: Runtime): Promise<McpServerConfig[] | undefined> {
	if (!task.mcpServers?.length) return undefined;
	for (const server of task.mcpServers) {
		if (server.approve.length === 0) continue;
		await approveMcpTools({ store: runtime.store, workspace: dirs.workspace, home: dirs.home, servers: [mcpServerConfig(server, dirs, true)], server: server.name, tools: server.approve, by: "eval" });
	}
	return task.mcpServers.map((s) => mcpServerConfig(s, dirs));
}

export async function unknownEffectFailures(task: EvalTask, store: Store, session: string): Promise<string[]> {
	const failures: string[] = [];
	for (const callId of task.checks.unknownEffects) {
		const ops = await store.listOperations({ session, call_id: callId });
		if (!ops.some((o) => o.state === "unknown")) failures.push(`unknown_effect: ${callId} has no operation settled unknown (${ops.map((o) => `${o.kind} ${o.state}`).join(", ") || "none"})`);
	}
	return failures;
}

export class PlainMcp {
	private constructor(private readonly servers: McpServerSet) {}

	static async start(task: EvalTask, dirs: TaskDirs): Promise<PlainMcp> {
		// Unsandboxed, as a naive client starts what its config names.
		const configs = (task.mcpServers ?? []).map((s) => ({ ...mcpServerConfig(s, dirs), sandbox: false }));
		return new PlainMcp(await McpServerSet.start(configs.map((c) => ({ name: c.name, transport: c.transport, workspace: dirs.workspace }))));
	}

	/** The server and tool a `mcp__<server>__<tool>` name means, if that server is connected. */
	route(name: string): { server: string; tool: string } | undefined {
		const m = /^mcp__([A-Za-z0-9_-]+?)__(.+)$/.exec(name);
		if (!m || !this.servers.get(m[1]!)) return undefined;
		return { server: m[1]!, tool: m[2]! };
	}

	async call(target: { server: string; tool: string }, args: unknown): Promise<PlainResult> {
		try {
			// A naive client's resource and prompt reads: everything the server says, as it says it.
			const read = mcpReadToolRow(target.server, `mcp__${target.server}__${target.tool}`);
			if (read) {
				const result = await this.servers.read(target.server, read.request((args ?? {}) as Record<string, unknown>), { signal: new AbortController().signal, timeoutMs: PLAIN_TIMEOUT_MS });
				const text = result.kind === "list" ? JSON.stringify(result.entries) : result.content.map((b) => (b.type === "text" ? b.text : `[${b.summary}]`)).join("\n");
				return { output: text, isError: false };
			}
			const result = await this.servers.callTool(target.server, target.tool, (args ?? {}) as Record<string, unknown>, { signal: new AbortController().signal, timeoutMs: PLAIN_TIMEOUT_MS });
			const text = result.content.map((b) => (b.type === "text" ? b.text : `[${b.summary}]`)).join("\n");
			return { output: text, isError: result.isError };
		} catch (err) {
			return { output: err instanceof Error ? err.message : String(err), isError: true };
		}
	}

	close(): Promise<void> {
		return this.servers.close();
	}
}
