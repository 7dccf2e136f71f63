/**
 * Call ids that name no call of the model: an ask the host raises about something before the model
 * may use it (an MCP definition shown for review before it is offered). Its ask events carry such
 * an id so every surface can answer it as any other ask, and the trace invariant knows there is no
 * proposed call behind it.
 */
export const REVIEW_CALL_PREFIX = "review:";

export function isReviewCall(callId: string): boolean {
	return callId.startsWith(REVIEW_CALL_PREFIX);
}
