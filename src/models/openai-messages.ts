import type { Message, ToolSchema } from "./provider.js";

/** A message as the OpenAI chat-completions API takes it. */
export type OpenAIMessage =
	| { role: "system" | "user"; content: string }
	| {
			role: "assistant";
			content: string;
			tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
	  }
	| { role: "tool"; tool_call_id: string; content: string };

export interface OpenAITool {
	type: "function";
	function: { name: string; description: string; parameters: Record<string, unknown> };
}

export function toOpenAIMessage(message: Message): OpenAIMessage {
	switch (message.role) {
		case "system":
		case "user":
			return { role: message.role, content: message.content };
		case "assistant": {
			if (message.tool_calls === undefined || message.tool_calls.length === 0) {
				return { role: "assistant", content: message.content };
			}
			// The provider hears its own ids back; a call it gave no id to keeps Warden's.
			const tool_calls = message.tool_calls.map((call) => ({
				id: call.provider_id ?? call.id,
				type: "function" as const,
				function: { name: call.name, arguments: call.arguments },
			}));
			return { role: "assistant", content: message.content, tool_calls };
		}
		case "tool":
			// The tool name stays out: strict servers reject fields the API does not define here.
			return { role: "tool", tool_call_id: message.provider_call_id ?? message.tool_call_id, content: message.content };
	}
}

export function toOpenAITool(tool: ToolSchema): OpenAITool {
	return {
		type: "function",
		function: { name: tool.name, description: tool.description, parameters: tool.parameters },
	};
}
