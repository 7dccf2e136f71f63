/**
 * Which of a server's governed read tools (src/tools/mcp-read-tools.ts) a session offers: those
 * of the capabilities the server declared, less what the config's include_tools / exclude_tools
 * leave out (matched against the suffix, `read_resource`), what a deny rule or a read-only mode
 * takes away, and a name the server's own tools already use (the server's tool keeps it: the
 * read tool is withheld as `shadowed`, never silently replacing what a human approved).
 */
import type { McpServerOffers, McpToolInfo } from "../../providers/mcp/mcp-types.js";
import { MCP_READ_TOOLS, type McpReadToolRow } from "../../tools/mcp-read-tools.js";
import { mcpToolName } from "../../tools/mcp-tool.js";
import { deniedBy, excludedBy, type McpOfferPolicy } from "./mcp-review.js";
import type { McpServerConfig } from "./mcp-server-config.js";

export interface McpReadToolReview {
	name: string;
	row: McpReadToolRow;
	status: "offered" | "excluded" | "denied" | "shadowed";
	why?: string;
}

export function reviewReadTools(config: McpServerConfig, offers: McpServerOffers, listed: readonly McpToolInfo[], policy?: McpOfferPolicy): McpReadToolReview[] {
	const taken = new Set(listed.map((t) => mcpToolName(config.name, t.name)));
	return MCP_READ_TOOLS.filter((row) => offers[row.capability]).map((row): McpReadToolReview => {
		const name = mcpToolName(config.name, row.suffix);
		const excluded = excludedBy(row.suffix, config);
		if (excluded) return { name, row, status: "excluded", why: excluded };
		const denied = policy && deniedBy(name, policy);
		if (denied) return { name, row, status: "denied", why: denied };
		if (taken.has(name)) return { name, row, status: "shadowed", why: `the server lists a tool of its own named ${name}` };
		return { name, row, status: "offered" };
	});
}
