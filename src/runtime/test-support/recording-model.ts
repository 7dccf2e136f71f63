/** A model for runtime tests: answers from a list and keeps a copy of every request it was sent. */
import type { Message, ModelLocality, ModelProvider, ModelRequest, ModelResponse } from "../../models/provider.js";

/** A fixed response, or a function of the request (it may wait on the signal, or throw). */
export type ModelAnswer = ModelResponse | ((request: ModelRequest, signal: AbortSignal) => ModelResponse | Promise<ModelResponse>);

/** What the model says once its answers run out. */
export const RECORDING_MODEL_DONE = "recording model: done";

export class RecordingModel implements ModelProvider {
	/** Tests run it in-process; a test of a remote model's flow sets it to "remote". */
	locality: ModelLocality = "in-process";
	/** The messages of each request, copied when it was made (the runtime keeps appending to its history). */
	readonly requests: Message[][] = [];

	constructor(
		private readonly answers: readonly ModelAnswer[],
		readonly spec = "recording:test",
	) {}

	async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		this.requests.push(structuredClone(request.messages));
		const answer = this.answers[this.requests.length - 1] ?? { text: RECORDING_MODEL_DONE, toolCalls: [] };
		return typeof answer === "function" ? answer(request, signal) : answer;
	}
}

/** One step proposing the given calls; arguments are passed as objects, as a decoded API would. */
export function callsStep(...calls: { name: string; arguments: unknown }[]): ModelResponse {
	return { text: "", toolCalls: calls };
}

/** A RecordingModel that also keeps each whole request (its tools included), for tests of what a model was offered. */
export function recordingRequests(answers: readonly ModelAnswer[]): { model: RecordingModel; requests: ModelRequest[] } {
	const requests: ModelRequest[] = [];
	const model = new RecordingModel(
		answers.map((answer) => (request: ModelRequest, signal: AbortSignal) => {
			requests.push(request);
			return typeof answer === "function" ? answer(request, signal) : answer;
		}),
	);
	return { model, requests };
}
