/**
 * What the console's HTTP API returns: the page (web/console) imports these types only, so the
 * server and the page agree on every field.
 */
import type { AskAnswer, ElicitAction, ElicitReply, PendingAsk } from "../../runtime/asks/ask-types.js";
import type { AuditPageRow, FeedEventRow } from "../../store/sqlite-feed.js";
import type { SessionRow, TaskRunRow } from "../../store/store.js";

export type { AskAnswer, AuditPageRow, ElicitAction, ElicitReply, FeedEventRow, PendingAsk, SessionRow };

/** One Server-Sent Event of the live feed: its SSE id is `id`, the resume point. */
export type FeedItem = FeedEventRow;

export interface AuditPage {
	records: AuditPageRow[];
	/** The `before` of the next (older) page; absent on the last page. */
	next?: number;
}

export type VerifyResult = { ok: true; checked: number } | { ok: false; checked: number; firstBad: { seq: number; reason: string } };

/** A task run as the console shows it: whether it needs attention is worked out from the evidence, read-only. */
export interface RunView extends TaskRunRow {
	/** What it needs attention for, one line; absent when nothing is open. */
	open?: string;
}

export interface ExplainView {
	/** `warden explain`'s text rendering of the tree or the model call's context manifest, already through the display rule: drawn as it is. */
	text: string;
	/** The same explanation as data. */
	tree: unknown;
}

export interface ErrorBody {
	error: string;
}

/** The answers the approvals page offers, in the order its buttons show them. */
export const ASK_ANSWERS: readonly AskAnswer[] = ["allow_once", "allow_always", "deny", "deny_always"];

/** The answers an MCP server's request for input takes (POST /api/asks/:id with `content` for accept). */
export const ELICIT_ACTIONS: readonly ElicitAction[] = ["accept", "decline", "cancel"];
