/**
 * An ask that any surface may answer: a pending approval, exact-release or MCP elicitation request
 * kept as a durable row, so the console (or another terminal) can answer what a `warden run` in
 * another process raised.
 */
import type { ElicitField } from "../mcp/elicit-questions.js";

export type AskAnswer = "allow_once" | "allow_always" | "deny" | "deny_always";

export interface PendingAsk {
	id: string;
	session: string;
	call_id: string;
	kind: "approval" | "release" | "elicitation";
	tool: string;
	/** The canonical resource the decision is about. */
	resource: string;
	/** The call's exact arguments. */
	arguments: unknown;
	/** Why it asked: the rule or the layer. */
	reason: string;
	/** For writes: the unified diff the write would make. */
	diff?: string;
	/** The exact rule that "always" would persist. */
	always_rule?: string;
	/** For exact-release requests of the flow plane. */
	release?: { digest: string; labels: string[]; sink: string };
	/** For an MCP server's request for input: what it says and the fields it wants, as any surface asks them. */
	elicitation?: { server: string; message: string; requestedSchema: Record<string, unknown>; fields: ElicitField[] };
	created_at: string;
	expires_at?: string;
}

export type AnswerResult = { ok: true } | { ok: false; error: string };

/** The three answers an elicitation takes (MCP's own words). */
export type ElicitAction = "accept" | "decline" | "cancel";

/** An answer to an elicitation: accepted with the content its schema asked for, or declined, or cancelled. */
export type ElicitReply = { action: "accept"; content: Record<string, unknown> } | { action: "decline" } | { action: "cancel" };

export interface AskQueue {
	/** Every ask still waiting for an answer, oldest first. */
	pending(): PendingAsk[];
	/** Answers one ask exactly once; a second answer, or one to an expired ask, is refused with a one-line error. */
	answer(id: string, answer: AskAnswer, answeredBy: string): AnswerResult;
	/**
	 * Answers one elicitation exactly once; accepted content is checked against the schema the server
	 * asked for first, and content that does not fit is refused in one line with the ask left open.
	 */
	reply(id: string, reply: ElicitReply, answeredBy: string): AnswerResult;
}
