/**
 * What the editor is shown when Warden asks: the call as its tool-call view, plus the exact thing
 * being approved (the command as it will run, or the unified diff the lease is bound to) and why
 * Warden asks; for an exact release, the sink, the label, the payload's digest and its redacted
 * preview, with only the one-shot answers.
 */
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import type { ReleaseRequest } from "../../kernel/flow/flow-types.js";
import type { ConfirmationRequest } from "../../runtime/session-options.js";
import { isReviewCall } from "../../kernel/evidence/review-calls.js";
import { codeBlock } from "./code-block.js";
import { RELEASE_OPTIONS, TOOL_OPTIONS } from "./permission-options.js";
import { textContent, type ToolCallView } from "./tool-call-view.js";

export function toolPermissionRequest(sessionId: string, request: ConfirmationRequest, view: ToolCallView): RequestPermissionRequest {
	// A sub-agent's ask names a call of the child session, which the editor has not been shown.
	const child = request.session !== sessionId;
	return {
		sessionId,
		toolCall: {
			toolCallId: request.callId,
			title: isReviewCall(request.callId) ? `Approve the MCP definition ${request.resource}` : child ? `Sub-agent: ${view.title}` : view.title,
			kind: view.kind,
			status: "pending",
			rawInput: request.arguments,
			locations: view.locations,
			content: [...view.content, textContent(exactly(request))],
		},
		options: TOOL_OPTIONS.map((row) => row.option),
	};
}

export function releasePermissionRequest(sessionId: string, request: ReleaseRequest): RequestPermissionRequest {
	return {
		sessionId,
		toolCall: {
			toolCallId: request.call_id ?? `release-${request.id}`,
			title: `Release ${request.label.sensitivity} data to ${request.sink} (${request.operation}), once`,
			kind: "other",
			status: "pending",
			content: [textContent(`${request.why}\n\nExactly this payload (sha256 ${request.payload_sha256}):\n${request.preview}`)],
		},
		options: [...RELEASE_OPTIONS],
	};
}

/** The exact thing being approved, in words: the command as it will run, or the diff of the write. */
function exactly(request: ConfirmationRequest): string {
	const args = (request.arguments ?? {}) as Record<string, unknown>;
	const why = `Warden asks because: ${request.decision.reason}`;
	if (request.diff) return `${why}\n\n${codeBlock(request.diff, "diff")}`;
	if (typeof args.command === "string") return `${why}\n\nRuns exactly:\n${codeBlock(args.command, "sh")}`;
	return `${why}\n\n${request.tool} on ${request.resource}:\n${codeBlock(JSON.stringify(request.arguments, null, 2), "json")}`;
}
