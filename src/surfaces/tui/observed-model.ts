/**
 * The session's model as the screen sees it: the same provider, with its streamed text, the tool
 * results each request carries back (the output the model was given), and the size of the
 * context handed to whoever draws. Nothing the model receives or returns is changed.
 */
import type { Message, ModelProvider, ModelRequest, ModelResponse } from "../../models/provider.js";

export interface ModelObserver {
	/** A piece of the answer as the provider streams it. */
	onText(delta: string): void;
	/** A tool result as the model is about to read it, once per call id. */
	onToolResult(callId: string, content: string): void;
	/** Tokens of the context just sent: counted by the model's tokenizer, or estimated (4 characters a token). */
	onContext(tokens: number, estimated: boolean): void;
}

function messageText(message: Message): string {
	if (message.role === "assistant") return message.content + (message.tool_calls ?? []).map((c) => c.name + c.arguments).join("");
	return message.content;
}

export function observedModel(model: ModelProvider, observer: ModelObserver): ModelProvider {
	const seen = new Set<string>();
	const wrapped: ModelProvider = {
		spec: model.spec,
		...(model.locality ? { locality: model.locality } : {}),
		...(model.contextWindow !== undefined ? { contextWindow: model.contextWindow } : {}),
		...(model.countTokens ? { countTokens: (text: string) => (model.countTokens as (t: string) => number)(text) } : {}),
		async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
			for (const message of request.messages) {
				if (message.role !== "tool" || seen.has(message.tool_call_id)) continue;
				seen.add(message.tool_call_id);
				observer.onToolResult(message.tool_call_id, message.content);
			}
			const text = request.messages.map(messageText).join("\n");
			if (model.countTokens) observer.onContext(model.countTokens(text), false);
			else observer.onContext(Math.ceil(text.length / 4), true);
			const upstream = request.onTextDelta;
			return model.complete(
				{
					...request,
					onTextDelta: (delta) => {
						upstream?.(delta);
						observer.onText(delta);
					},
				},
				signal,
			);
		},
	};
	return wrapped;
}
