/** The tool-result texts the model sees for calls that did not run normally. */

const DO_NOT_ROUTE_AROUND =
	"Do not try to reach the same effect another way (a different tool, command, wrapper or path); tell the user what you wanted to do and why.";

export function deniedMessage(tool: string, reason: string): string {
	return `Permission denied: the host refused this ${tool} call (${reason}). ${DO_NOT_ROUTE_AROUND}`;
}

export function notApprovedMessage(tool: string): string {
	return `Cancelled: the user did not approve this ${tool} call. ${DO_NOT_ROUTE_AROUND}`;
}

export function staleApprovalMessage(tool: string, reason: string): string {
	return `Not run: this ${tool} call was approved for the arguments and target state it was shown with, and those changed before it could run (${reason}). Propose it again if it is still needed.`;
}

export function cancelledMessage(tool: string): string {
	return `Cancelled: this ${tool} call was cancelled by the host before it finished. Do not retry it unless the user asks.`;
}

export function budgetExhaustedMessage(tool: string, reason: string): string {
	return `Not run: this ${tool} call did not fit the budget the host set (${reason}). The turn ends here; tell the user what is left to do.`;
}

export function invalidCallMessage(tool: string, error: string): string {
	return `Invalid tool call to ${tool}: ${error}. Nothing was executed. Correct the call if the task still needs it.`;
}

export function failedMessage(tool: string, error: string): string {
	return `Error from ${tool}: ${error}`;
}

export function truncate(text: string, maxChars: number): { text: string; truncated: boolean } {
	if (text.length <= maxChars) return { text, truncated: false };
	const dropped = text.length - maxChars;
	return { text: `${text.slice(0, maxChars)}\n[… ${dropped} more characters truncated by Warden]`, truncated: true };
}
