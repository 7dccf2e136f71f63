/** An MCP server as a session is given it: resolved from the config layers (src/config/mcp-servers.ts) or by an embedding host. */
import type { McpTransportSpec } from "../../providers/mcp/mcp-types.js";

export interface McpServerConfig {
	/** The key in `mcpServers`; tools are named `mcp__<name>__<tool>`. */
	name: string;
	transport: McpTransportSpec;
	/** Only these tools (names or globs) are offered; absent: all. */
	includeTools?: readonly string[];
	/** These tools (names or globs) are never offered. */
	excludeTools?: readonly string[];
	/** Start a stdio server inside the shell sandbox's workspace-write profile; it fails closed where no sandbox works. */
	sandbox: boolean;
	/** A sandboxed server may use the network. */
	network?: boolean;
	/** How long one call may take, in ms (default 60 000). */
	timeoutMs?: number;
	/** Where it was configured, e.g. `project config /w/.warden/config.yaml` or `.mcp.json /w/.mcp.json`. */
	source: string;
}
