/**
 * Warden's history as the Messages API takes it. The API has no system or tool roles: system
 * messages become the `system` parameter, a tool result is a `tool_result` block in a user turn,
 * and consecutive turns of one role are joined, since the API wants user and assistant to alternate.
 */
import type { ContentBlockParam, MessageParam, TextBlockParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import type { Message, ToolSchema } from "./provider.js";

export interface AnthropicRequestParts {
	system?: TextBlockParam[];
	messages: MessageParam[];
}

export function toAnthropicRequest(history: readonly Message[]): AnthropicRequestParts {
	const system: string[] = [];
	const messages: MessageParam[] = [];
	const append = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
		if (blocks.length === 0) return;
		const last = messages[messages.length - 1];
		if (last?.role === role && Array.isArray(last.content)) last.content.push(...blocks);
		else messages.push({ role, content: blocks });
	};
	for (const message of history) {
		switch (message.role) {
			case "system":
				// Wherever it sits in the history, a system message is an instruction: the API takes those in one place.
				system.push(message.content);
				break;
			case "user":
				append("user", textBlock(message.content));
				break;
			case "assistant":
				append("assistant", [
					...textBlock(message.content),
					...(message.tool_calls ?? []).map((call): ContentBlockParam => ({
						type: "tool_use",
						id: call.provider_id ?? call.id,
						name: call.name,
						input: toolInput(call.arguments),
					})),
				]);
				break;
			case "tool":
				append("user", [{ type: "tool_result", tool_use_id: message.provider_call_id ?? message.tool_call_id, content: message.content }]);
				break;
		}
	}
	markCacheBreakpoint(messages);
	const parts: AnthropicRequestParts = { messages };
	if (system.length > 0) parts.system = [{ type: "text", text: system.join("\n\n"), cache_control: { type: "ephemeral" } }];
	return parts;
}

export function toAnthropicTool(tool: ToolSchema): Tool {
	return { name: tool.name, description: tool.description, input_schema: { type: "object", ...tool.parameters } as Tool["input_schema"] };
}

/** The API rejects empty text blocks; an assistant turn that only called tools has none. */
function textBlock(text: string): TextBlockParam[] {
	return text.trim() === "" ? [] : [{ type: "text", text }];
}

/**
 * The API wants a call's input as an object. Arguments the model garbled (recorded as the model
 * sent them, and answered with an error) go back under `arguments`, so the model sees what it wrote.
 */
function toolInput(args: string): Record<string, unknown> {
	try {
		const parsed: unknown = JSON.parse(args);
		if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
	} catch {
		// Falls through to the wrapped form.
	}
	return { arguments: args };
}

/**
 * Prompt caching needs explicit breakpoints: one on the system prompt and one on the newest block
 * lets the next request of the turn read everything before it from the cache.
 */
function markCacheBreakpoint(messages: MessageParam[]): void {
	const last = messages[messages.length - 1];
	if (last === undefined || !Array.isArray(last.content)) return;
	const block = last.content[last.content.length - 1];
	if (block !== undefined && (block.type === "text" || block.type === "tool_result" || block.type === "tool_use")) {
		block.cache_control = { type: "ephemeral" };
	}
}
