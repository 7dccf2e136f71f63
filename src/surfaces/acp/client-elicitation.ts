/**
 * An MCP server's request for input, put to the person in the editor: as ACP's `elicitation/create`
 * in form mode, tied to the session, when the client says it can show a form (its
 * `elicitation.form` capability). A client that cannot gets no request: it is declined, as in
 * automation, so nothing is answered on the person's behalf.
 */
import type { CreateElicitationResponse } from "@agentclientprotocol/sdk";
import type { McpElicitation, McpElicitationAnswer } from "../../providers/mcp/mcp-types.js";
import type { ElicitCallback } from "../../runtime/mcp/mcp-session-tools.js";
import type { AcpConnectionState, AcpSession } from "./acp-session.js";
import { shownElicitation } from "./shown-updates.js";

/** The answer a client's response gives (an unknown action declines). */
export function elicitationAnswer(response: CreateElicitationResponse): McpElicitationAnswer {
	if (response.action === "accept") {
		const content = (response as { content?: unknown }).content;
		return { action: "accept", content: typeof content === "object" && content !== null && !Array.isArray(content) ? (content as Record<string, unknown>) : {} };
	}
	return { action: response.action === "cancel" ? "cancel" : "decline" };
}

/** The session's elicit callback for an ACP client, or undefined when the client shows no forms. */
export function clientElicitation(acp: () => AcpSession | undefined, connection: AcpConnectionState): ElicitCallback | undefined {
	if (!connection.capabilities.elicitation?.form) return undefined;
	return async (request: McpElicitation, signal: AbortSignal) => {
		const session = acp();
		if (!session) return { action: "decline" };
		const params = { sessionId: session.id, mode: "form" as const, message: `MCP server ${request.server} asks: ${request.message}`, requestedSchema: request.requestedSchema as never };
		return elicitationAnswer(await connection.client.request("elicitation/create", shownElicitation(params), { cancellationSignal: signal }));
	};
}
