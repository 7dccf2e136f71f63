/**
 * The asks `warden console` answers. They are the rows of the durable ask store (src/runtime/asks/)
 * once this build has one; without it no process can raise an ask that outlives its own prompt,
 * so there is none to answer here, and an answer to any id is refused rather than taken as given.
 */
import type { AnswerResult, AskQueue, PendingAsk } from "../../runtime/asks/ask-types.js";

export function openAskQueue(_stateDir: string): AskQueue {
	return {
		pending: (): PendingAsk[] => [],
		answer: (id: string): AnswerResult => ({ ok: false, error: `no ask ${id} is pending` }),
	};
}
