/** What the chat shows: the transcript, the tool cards, the status line and the pending ask. */
import type { PermissionMode } from "../../kernel/admission/types.js";
import type { ReleaseRequest } from "../../kernel/flow/flow-types.js";
import type { ConfirmationRequest } from "../../runtime/session-options.js";

export type CardStatus = "proposed" | "asking" | "running" | "completed" | "failed" | "cancelled" | "denied" | "invalid";

export interface ToolCard {
	callId: string;
	tool: string;
	arguments: unknown;
	status: CardStatus;
	decision?: { decision: string; layer: string; reason: string; rule?: string };
	/** How the ask was answered, e.g. `approved (host)`. */
	confirmed?: string;
	/** Epoch ms the call started running, and how long it took once it ended. */
	startedAt?: number;
	durationMs?: number;
	error?: string;
	/** The last lines of what the tool gave the model (shell output), bounded. */
	tail?: string[];
	/** Lines hidden above the tail. */
	hiddenLines?: number;
	/** The write's diff as the ask showed it. */
	diff?: string;
	/** Nothing more will change on the card: its output is in, or its turn ended. */
	closed?: boolean;
}

export type { TodoItem } from "../../kernel/evidence/event-types.js";
import type { TodoItem } from "../../kernel/evidence/event-types.js";

export type Entry =
	| { id: number; kind: "user"; text: string }
	| { id: number; kind: "assistant"; text: string }
	| { id: number; kind: "tool"; card: ToolCard }
	| { id: number; kind: "notice"; text: string; tone: "info" | "error" | "ok" };

export type PendingAsk =
	| { kind: "approval"; request: ConfirmationRequest }
	| { kind: "release"; request: ReleaseRequest }
	| { kind: "question"; question: string }
	| { kind: "yesno"; question: string };

export interface StatusInfo {
	session: string;
	mode: PermissionMode;
	model: string;
	sandbox: string;
	contextTokens?: number;
	contextEstimated: boolean;
	contextWindow?: number;
	/** Budget counters that were used or are limited, e.g. `tools 3/20`. */
	budget: string;
}

export interface ChatView {
	entries: readonly Entry[];
	/** The answer being streamed, not yet part of the transcript. */
	streaming: string;
	status: StatusInfo;
	todos: readonly TodoItem[];
	ask: PendingAsk | undefined;
	busy: boolean;
	/** A plan-mode answer waiting for the person to carry it out in workspace-write. */
	planOffer: boolean;
}

/** The lines of a tool card's tail. */
export const TAIL_LINES = 6;
