/**
 * The host's release callback, made durable: an exact-release request becomes a row that the
 * callback and every other surface race to answer. Only a once-answer applies to a release (one
 * payload, one sink, once); the answer that lands first decides.
 */
import type { EvidenceRecorder } from "../../kernel/evidence/evidence-recorder.js";
import type { ReleaseCallback } from "../../kernel/flow/flow-types.js";
import { type AskBoard, AskRefused } from "./ask-board.js";
import { ANSWER_MEANING, releaseAsk } from "./ask-content.js";

export function releaseThroughAsks(board: AskBoard, recorder: EvidenceRecorder, release: ReleaseCallback): ReleaseCallback {
	return async (request, signal) => {
		const settled = await board.ask(
			recorder,
			releaseAsk(request),
			async (surfaceSignal) => ((await release(request, surfaceSignal)) === true ? { answer: "allow_once", by: "host" } : { answer: "deny", by: "host" }),
			signal,
		);
		if (settled.settled === "refused") throw new AskRefused(settled.why);
		return ANSWER_MEANING[settled.answer].allows;
	};
}
