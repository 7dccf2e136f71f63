/**
 * An ask that any surface may answer: a pending approval or exact-release request kept as a durable
 * row, so the console (or another terminal) can answer what a `warden run` in another process raised.
 */
export type AskAnswer = "allow_once" | "allow_always" | "deny" | "deny_always";

export interface PendingAsk {
	id: string;
	session: string;
	call_id: string;
	kind: "approval" | "release";
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
	created_at: string;
	expires_at?: string;
}

export type AnswerResult = { ok: true } | { ok: false; error: string };

export interface AskQueue {
	/** Every ask still waiting for an answer, oldest first. */
	pending(): PendingAsk[];
	/** Answers one ask exactly once; a second answer, or one to an expired ask, is refused with a one-line error. */
	answer(id: string, answer: AskAnswer, answeredBy: string): AnswerResult;
}
