/** The memory tools a session offers when it keeps memory (the runtime adds them to the built-in ones). */
import { memorySearchTool } from "./memory-search.js";
import { memoryWriteTool } from "./memory-write.js";
import type { ToolDefinition } from "./tool.js";

export const MEMORY_TOOLS: readonly ToolDefinition[] = [memorySearchTool, memoryWriteTool];
