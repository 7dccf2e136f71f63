/**
 * The asks of one state dir as another surface sees them (the console, `warden asks`): every ask
 * still waiting, and one answer to one of them, landed exactly once. The process that raised the
 * ask acts on the answer and records it (ask.answered, with who answered); an "always" answer is
 * persisted there by the same code a terminal's "always" runs (src/runtime/session-approvals.ts).
 */
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import type { AskStore } from "../../store/ask-rows.js";
import { resolveStateDir } from "../../store/state-dir.js";
import { ANSWER_MEANING, ASK_ANSWERS, ELICIT_ACTIONS, isAskAnswer, isElicitAction, pendingAskOf } from "./ask-content.js";
import type { AnswerResult, AskAnswer, AskQueue, ElicitReply, PendingAsk } from "./ask-types.js";
import { elicitContentProblem } from "./elicit-content-check.js";

export interface OpenAskQueue extends AskQueue {
	/** The state dir it reads and answers in. */
	readonly stateDir: string;
	/** Releases this process's hold on the state dir (its process lease). */
	close(): Promise<void>;
}

/** The queue over a store's ask rows. */
export function askQueueOver(rows: AskStore, now: () => Date = () => new Date()): AskQueue {
	return {
		pending(): PendingAsk[] {
			return rows.pending(now().toISOString()).map(pendingAskOf);
		},
		answer(id: string, answer: AskAnswer, answeredBy: string): AnswerResult {
			if (!isAskAnswer(answer)) return { ok: false, error: `unknown answer ${JSON.stringify(answer)}: use ${ASK_ANSWERS.join(", ")}` };
			const by = answererOf(answeredBy);
			if (by === "") return { ok: false, error: "an answer must name who gave it (answered_by)" };
			const row = rows.get(id);
			if (!row) return { ok: false, error: `unknown ask ${id}` };
			if (row.kind === "elicitation") return { ok: false, error: `ask ${id} is an MCP server's request for input: answer ${ELICIT_ACTIONS.join(", ")}` };
			if (row.kind === "release" && !ANSWER_MEANING[answer].release) {
				return { ok: false, error: `ask ${id} is an exact release (one payload, once): answer allow_once or deny` };
			}
			const claim = rows.answer(id, answer, by, now().toISOString());
			return claim.ok ? { ok: true } : { ok: false, error: claim.error };
		},
		reply(id: string, reply: ElicitReply, answeredBy: string): AnswerResult {
			const action = (reply as { action?: unknown } | null)?.action;
			if (!isElicitAction(action)) return { ok: false, error: `unknown answer ${JSON.stringify(action)}: use ${ELICIT_ACTIONS.join(", ")}` };
			const by = answererOf(answeredBy);
			if (by === "") return { ok: false, error: "an answer must name who gave it (answered_by)" };
			const row = rows.get(id);
			if (!row) return { ok: false, error: `unknown ask ${id}` };
			if (row.kind !== "elicitation") return { ok: false, error: `ask ${id} is an ${row.kind === "release" ? "exact release" : "approval"}, not a request for input: answer ${ASK_ANSWERS.join(", ")}` };
			let content: Record<string, unknown> | undefined;
			// An ask no longer open is refused by the claim below, whatever the content.
			if (reply.action === "accept" && row.state === "pending") {
				const asked = pendingAskOf(row).elicitation?.requestedSchema ?? {};
				const problem = elicitContentProblem(asked, reply.content);
				if (problem !== undefined) return { ok: false, error: `ask ${id}: ${problem}; nothing was sent, the ask is still open` };
				content = reply.content;
			}
			const claim = rows.answer(id, action, by, now().toISOString(), content);
			return claim.ok ? { ok: true } : { ok: false, error: claim.error };
		},
	};
}

function answererOf(answeredBy: unknown): string {
	return typeof answeredBy === "string" ? answeredBy.trim() : "";
}

/**
 * Opens the state dir for answering (a process lease, no recovery: that is a session host's to
 * run). `readOnly`: for listing only, taking no lease; an answer through it is refused.
 */
export function openAskQueue(stateDir?: string, options: { env?: NodeJS.ProcessEnv; readOnly?: boolean } = {}): OpenAskQueue {
	const dir = resolveStateDir(stateDir, options.env ?? process.env);
	const store = openSqliteStore(dir, options.readOnly ? { readOnly: true } : {});
	return { ...askQueueOver(store.asks), stateDir: dir, close: () => store.close() };
}
