/** How a Warden turn's status answers `session/prompt`: a stop reason, or an error the client shows. */
import type { StopReason } from "@agentclientprotocol/sdk";
import type { TurnStatus } from "../../kernel/evidence/event-types.js";

export const STOP_REASONS: Readonly<Record<TurnStatus, StopReason | "error">> = {
	completed: "end_turn",
	cancelled: "cancelled",
	max_steps: "max_turn_requests",
	budget_exhausted: "max_turn_requests",
	// The context could not be made to fit the window: ACP's nearest reason is running out of tokens.
	context_full: "max_tokens",
	model_error: "error",
	error: "error",
};
