/**
 * The part of an MCP tool that is pinned: name, title, description, input schema and annotations,
 * as canonical JSON, and its sha256. Anything else a server sends is not shown to the model, so it
 * is not part of what a human approved. A diff between two definitions is over their pretty JSON.
 */
import { createHash } from "node:crypto";
import { createTwoFilesPatch } from "diff";
import type { McpToolInfo } from "../../providers/mcp/mcp-types.js";
import { canonicalJson } from "../evidence/audit-chain.js";

export function pinnedDefinition(tool: McpToolInfo): Record<string, unknown> {
	return {
		name: tool.name,
		...(tool.title !== undefined ? { title: tool.title } : {}),
		description: tool.description,
		inputSchema: tool.inputSchema,
		...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
	};
}

export function definitionText(definition: Record<string, unknown>): string {
	return canonicalJson(definition);
}

export function definitionDigest(definition: Record<string, unknown>): string {
	return createHash("sha256").update(definitionText(definition)).digest("hex");
}

function pretty(canonical: string): string {
	// Escaped so that invisible characters show in the diff as what they are.
	return `${JSON.stringify(JSON.parse(canonical), null, 2).replace(/[^\x20-\x7E\n]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)}\n`;
}

/** A unified diff from the approved definition to the one the server lists now. */
export function definitionDiff(tool: string, approved: string, current: string): string {
	return createTwoFilesPatch(`approved/${tool}`, `current/${tool}`, pretty(approved), pretty(current), undefined, undefined, { context: 3 })
		.split("\n")
		.slice(1)
		.join("\n");
}

/** A definition never approved, in full, as a diff from nothing: what a review shows of a new one. */
export function newDefinitionDiff(tool: string, current: string): string {
	return createTwoFilesPatch("/dev/null", `current/${tool}`, "", pretty(current), undefined, undefined, { context: 3 })
		.split("\n")
		.slice(1)
		.join("\n");
}
