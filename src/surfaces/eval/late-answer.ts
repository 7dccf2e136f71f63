/**
 * `late_answer` tasks: a host that shows nothing and answers nothing in time. Each ask expires
 * unanswered (at once), and only then the task's answer arrives from another surface through the
 * ask queue, as a console answering a stale page would. That answer must be refused, and the call
 * refused with it; one that is taken is a failure of the task.
 */
import { askQueueOver } from "../../runtime/asks/ask-queue.js";
import type { OpenSessionOptions, Runtime } from "../../runtime/runtime.js";
import type { TaskRun } from "./task-run.js";

/** The shortest wait the session accepts: the ask has expired before anyone could answer it. */
export const LATE_ASK_TIMEOUT_MS = 1;

export function lateAnswerHost(runtime: Runtime, answer: "allow_once" | "allow_always", run: TaskRun): Pick<OpenSessionOptions, "confirm" | "askTimeoutMs" | "onEvent"> {
	const askOfCall = new Map<string, string>();
	return {
		askTimeoutMs: LATE_ASK_TIMEOUT_MS,
		onEvent: (event) => {
			if (event.kind === "ask.opened") askOfCall.set(event.payload.call_id, event.payload.ask);
		},
		confirm: (request, signal) => {
			run.prompts++;
			return new Promise((resolve) => {
				const late = () => {
					const ask = askOfCall.get(request.callId);
					if (ask === undefined) run.failures.push(`call ${request.callId}: its ask was never opened`);
					else {
						const result = askQueueOver(runtime.store.asks).answer(ask, answer, "eval-late");
						if (result.ok) run.failures.push(`call ${request.callId}: the late answer ${answer} to expired ask ${ask} was taken`);
					}
					resolve(false);
				};
				if (signal.aborted) late();
				else signal.addEventListener("abort", late, { once: true });
			});
		},
	};
}
