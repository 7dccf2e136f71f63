/**
 * The host's elicit callback, made durable: an MCP server's request for input becomes a row that
 * this process's own surface (the terminal's questions, an ACP client's form) and every other
 * surface (the console, `warden asks answer`) race to answer; the first answer to land is what the
 * server gets. Content typed here stays in this process; content given elsewhere passes through the
 * row only until this process takes it. An ask that settles without an answer is a cancel.
 */
import { randomUUID } from "node:crypto";
import type { EvidenceRecorder } from "../../kernel/evidence/evidence-recorder.js";
import { ELICITATION_CALL_PREFIX } from "../../kernel/evidence/review-calls.js";
import type { McpElicitation, McpElicitationAnswer } from "../../providers/mcp/mcp-types.js";
import type { ElicitCallback } from "../mcp/mcp-session-tools.js";
import type { AskBoard } from "./ask-board.js";
import { elicitationAsk, isElicitAction } from "./ask-content.js";
import type { ElicitAction } from "./ask-types.js";

export function elicitThroughAsks(board: AskBoard, recorder: EvidenceRecorder, elicit: ElicitCallback): ElicitCallback {
	return async (request: McpElicitation, signal: AbortSignal): Promise<McpElicitationAnswer> => {
		const settled = await board.ask<ElicitAction>(
			recorder,
			// The request comes from the server, not from a call of the model's: its row is named for itself.
			elicitationAsk(request, `${ELICITATION_CALL_PREFIX}${randomUUID()}`),
			async (surfaceSignal) => {
				const answer = await elicit(request, surfaceSignal);
				return answer.action === "accept" ? { answer: "accept", by: "host", content: answer.content } : { answer: answer.action, by: "host" };
			},
			signal,
			isElicitAction,
		);
		if (settled.settled === "refused") return { action: "cancel" };
		if (settled.answer === "accept") return { action: "accept", content: settled.content ?? {} };
		return { action: settled.answer };
	};
}
