/**
 * A session's connected MCP servers by configured name: they are started together, a server that
 * fails to start is reported and left out (the others still serve), and a call is routed to its
 * server by name. A server whose process ended stays listed as gone: its calls fail as such.
 */
import type { McpConnection, McpConnectOptions } from "./mcp-connection.js";
import { type McpCallResult, McpConnectError, type McpReadRequest, type McpReadResult } from "./mcp-types.js";

export interface McpStartFailure {
	server: string;
	error: string;
}

export class McpServerSet {
	private constructor(
		private readonly connections: Map<string, McpConnection>,
		/** Servers that could not be started or connected, with why. */
		readonly failures: readonly McpStartFailure[],
	) {}

	/** Starts every server at once; never throws for one server's failure. */
	static async start(servers: readonly McpConnectOptions[]): Promise<McpServerSet> {
		const connections = new Map<string, McpConnection>();
		const failures: McpStartFailure[] = [];
		if (servers.length === 0) return new McpServerSet(connections, []);
		// The SDK loads only for a session that has servers: one without any never pays for it.
		const { McpConnection } = await import("./mcp-connection.js");
		const settled = await Promise.allSettled(servers.map((s) => McpConnection.connect(s)));
		settled.forEach((outcome, i) => {
			const name = servers[i]!.name;
			if (outcome.status === "fulfilled") connections.set(name, outcome.value);
			else failures.push({ server: name, error: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason) });
		});
		return new McpServerSet(connections, failures);
	}

	/** The connected servers, in the order they were configured. */
	list(): McpConnection[] {
		return [...this.connections.values()];
	}

	get(server: string): McpConnection | undefined {
		return this.connections.get(server);
	}

	callTool(server: string, tool: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<McpCallResult> {
		const connection = this.connections.get(server);
		if (!connection) return Promise.reject(new McpConnectError(`no MCP server ${server} is connected`));
		return connection.callTool(tool, args, options);
	}

	read(server: string, request: McpReadRequest, options: { signal: AbortSignal; timeoutMs: number }): Promise<McpReadResult> {
		const connection = this.connections.get(server);
		if (!connection) return Promise.reject(new McpConnectError(`no MCP server ${server} is connected`));
		return connection.read(request, options);
	}

	async close(): Promise<void> {
		await Promise.allSettled(this.list().map((c) => c.close()));
	}
}
