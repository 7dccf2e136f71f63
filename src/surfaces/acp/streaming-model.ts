/**
 * The session's model with its text streamed to the editor as it arrives: every request also hands
 * each delta to `onText`. Everything else (spec, locality, context window, tokenizer) is the
 * model's own, so the flow plane and the budget see the same provider.
 */
import type { ModelProvider, ModelRequest, ModelResponse } from "../../models/provider.js";

export interface StreamingModel extends ModelProvider {
	/** Where deltas go now; unset between turns. */
	onText: ((delta: string) => void) | undefined;
}

export function streamingModel(model: ModelProvider): StreamingModel {
	const streaming: StreamingModel = {
		spec: model.spec,
		...(model.locality ? { locality: model.locality } : {}),
		...(model.contextWindow !== undefined ? { contextWindow: model.contextWindow } : {}),
		...(model.countTokens ? { countTokens: (text: string) => model.countTokens?.(text) ?? 0 } : {}),
		onText: undefined,
		complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
			const upstream = request.onTextDelta;
			return model.complete(
				{
					...request,
					onTextDelta: (delta) => {
						upstream?.(delta);
						streaming.onText?.(delta);
					},
				},
				signal,
			);
		},
	};
	return streaming;
}
