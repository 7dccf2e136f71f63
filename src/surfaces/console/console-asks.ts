/**
 * The asks the console command answers. Durable asks (raised by a `warden run` in another process
 * and kept as rows) come from the runtime's ask store; until a state dir holds such rows there is
 * nothing to answer, and an answer to an id nobody raised is refused, never taken as given.
 */
import type { AnswerResult, AskQueue, PendingAsk } from "../../runtime/asks/ask-types.js";

export function openAskQueue(_stateDir: string): AskQueue {
	return {
		pending: (): PendingAsk[] => [],
		answer: (id: string): AnswerResult => ({ ok: false, error: `no ask ${id} is pending` }),
	};
}
