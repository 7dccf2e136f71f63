/** The tools a session offers the model, by name. */
import { agentTool } from "./agent.js";
import { askUserTool } from "./ask-user.js";
import { editFileTool } from "./edit-file.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { listDirTool } from "./list-dir.js";
import { readFileTool } from "./read-file.js";
import { shellTool } from "./shell.js";
import { todoWriteTool } from "./todo-write.js";
import type { ToolDefinition } from "./tool.js";
import { webFetchTool } from "./web-fetch.js";
import { writeFileTool } from "./write-file.js";

/** What the model is shown of a tool; the same shape a model provider sends. */
export interface ToolSchemaView {
	name: string;
	description: string;
	parameters: Record<string, unknown>;
}

/** Names a model provider accepts for a function (OpenAI and Anthropic agree on this). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export class ToolRegistry {
	private readonly tools = new Map<string, ToolDefinition>();

	constructor(tools: Iterable<ToolDefinition> = []) {
		for (const tool of tools) this.register(tool);
	}

	register(tool: ToolDefinition): void {
		if (!TOOL_NAME.test(tool.name)) throw new Error(`tool name ${JSON.stringify(tool.name)} must be 1-64 letters, digits, _ or -`);
		if (this.tools.has(tool.name)) throw new Error(`tool ${tool.name} is already registered`);
		this.tools.set(tool.name, tool);
	}

	/** Puts `tool` in place of the one of the same name (same position), or adds it: a new version of a JIT tool. */
	replace(tool: ToolDefinition): void {
		if (!TOOL_NAME.test(tool.name)) throw new Error(`tool name ${JSON.stringify(tool.name)} must be 1-64 letters, digits, _ or -`);
		this.tools.set(tool.name, tool);
	}

	/** Takes a tool out of what the model is offered (an MCP tool whose definition changed). */
	remove(name: string): boolean {
		return this.tools.delete(name);
	}

	get(name: string): ToolDefinition | undefined {
		return this.tools.get(name);
	}

	/** In registration order. */
	list(): ToolDefinition[] {
		return [...this.tools.values()];
	}

	schemas(): ToolSchemaView[] {
		return this.list().map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema }));
	}
}

export function builtinTools(): ToolDefinition[] {
	return [readFileTool, writeFileTool, editFileTool, listDirTool, globTool, grepTool, shellTool, webFetchTool, agentTool, todoWriteTool, askUserTool];
}
