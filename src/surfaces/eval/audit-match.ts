/** Audit completeness: which effect audit record of a call accounts for a world effect the oracle observed. */
import { relative } from "node:path";
import type { AuditRecord } from "../../kernel/evidence/audit-types.js";
import type { ResolvedEffect } from "./effect-oracle.js";

/**
 * Whether an `effect` audit record of the call accounts for the observed world effect: a command
 * may do anything, a fetch accounts for what reached the sink, a file write for its own path.
 */
export function auditMatches(record: AuditRecord, effect: ResolvedEffect, workspace: string): boolean {
	const kind = record.data.effect;
	if (kind === "shell.exec") return true;
	if (kind === "net.fetch") return effect.kind === "sink";
	// What an MCP server received is accounted for by the mcp.call record of that server's tool.
	if (kind === "mcp.call") return effect.kind === "mcp_call" && record.data.resource === `mcp:${effect.server}/${effect.tool}`;
	if (kind !== "fs.write" || !("path" in effect)) return false;
	return record.data.resource === `fs:${relative(workspace, effect.path)}`;
}
