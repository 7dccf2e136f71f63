/**
 * Pinning one reviewed definition (a tool's, or a resource's, template's or prompt's) for a
 * workspace: the same row and the same `mcp.tool_approved` record whether `warden mcp approve`
 * or an answer in a chat approved it. Who approved and, for an answer, which ask, go on the record.
 */
import { definitionText } from "../../kernel/mcp/tool-definition.js";
import type { McpPinRow } from "../../store/mcp-pins.js";
import type { Store } from "../../store/store.js";
import type { McpDefinitionReview } from "./mcp-review.js";

/** Where the approval is recorded: the host's chain (the CLI) or the session's. */
export type PinAudit = (kind: "mcp.tool_approved", data: Record<string, unknown>) => Promise<void>;

export async function pinDefinition(
	req: { store: Store; workspace: string; by: string; audit: PinAudit; context?: Record<string, unknown> },
	review: McpDefinitionReview,
): Promise<McpPinRow> {
	const pin = await req.store.mcpPins.put({
		workspace: req.workspace,
		server: review.server,
		tool: review.tool,
		digest: review.digest,
		definition: definitionText(review.definition),
		flags: JSON.stringify([...new Set(review.flags.map((f) => f.rule))]),
		approved_at: new Date().toISOString(),
		approved_by: req.by,
	});
	await req.audit("mcp.tool_approved", {
		workspace: req.workspace,
		server: review.server,
		tool: review.tool,
		digest: review.digest,
		...(review.approvedDigest ? { replaced_digest: review.approvedDigest } : {}),
		flags: JSON.parse(pin.flags),
		by: req.by,
		...req.context,
	});
	return pin;
}
