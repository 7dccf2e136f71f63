/**
 * Call ids that name no call of the model: an ask the host raises about something before the model
 * may use it (an MCP definition shown for review before it is offered), or one a server raises
 * (an MCP server's request for input, which is the server's, not a call's). Its ask events carry such
 * an id so every surface can answer it as any other ask, and the trace invariant knows there is no
 * proposed call behind it.
 */
export const REVIEW_CALL_PREFIX = "review:";

/** The call id of an MCP server's request for input, followed by the ask's own id. */
export const ELICITATION_CALL_PREFIX = "elicitation:";

export function isReviewCall(callId: string): boolean {
	return callId.startsWith(REVIEW_CALL_PREFIX) || callId.startsWith(ELICITATION_CALL_PREFIX);
}
