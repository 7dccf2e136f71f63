/**
 * Warden's messages as node-llama-cpp's chat history: the system messages with the reply protocol
 * appended, earlier replies shown in the protocol the model answers in, tool results as user turns
 * that name the call they answer. The history ends with an empty model turn for the reply.
 */
import type { Message, ToolSchema } from "../provider.js";
import { protocolPrompt, renderReply } from "./llama-grammar.js";
import type { ChatHistoryItem } from "./node-llama-types.js";

export function toChatHistory(messages: Message[], tools: ToolSchema[]): ChatHistoryItem[] {
	const system = messages.filter((m) => m.role === "system").map((m) => m.content);
	const items: ChatHistoryItem[] = [{ type: "system", text: [...system, protocolPrompt(tools)].join("\n\n") }];
	for (const message of messages) {
		switch (message.role) {
			case "system":
				break;
			case "user":
				items.push({ type: "user", text: message.content });
				break;
			case "assistant":
				items.push({ type: "model", response: [renderReply(message.content, message.tool_calls ?? [])] });
				break;
			case "tool":
				items.push({ type: "user", text: `Result of ${message.name} (${message.tool_call_id}):\n${message.content}` });
				break;
		}
	}
	items.push({ type: "model", response: [] });
	return items;
}
