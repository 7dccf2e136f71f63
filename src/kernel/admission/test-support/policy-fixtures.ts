/** Builders shared by the admission tests: a policy context and tool facts shaped like the built-in tools. */
import type { PolicyContext, ToolFacts } from "../types.js";

export const WORKSPACE = "/ws/project";
export const HOME = "/home/user";

export function policy(overrides: Partial<PolicyContext> = {}): PolicyContext {
	return { mode: "workspace-write", workspace: WORKSPACE, home: HOME, runDenyRules: [], hostRules: [], ...overrides };
}

const READ_ONLY_TOOLS = new Set(["read_file", "list_dir", "glob", "grep"]);

export function shellTool(command: string): ToolFacts {
	return { name: "shell", readOnly: false, requiresConfirmation: true, subject: { kind: "command", value: command } };
}

export function fileTool(name: string, path: string): ToolFacts {
	const readOnly = READ_ONLY_TOOLS.has(name);
	return { name, readOnly, requiresConfirmation: !readOnly, subject: { kind: "path", value: path } };
}

/** The shell text `${HOME}`, spelled so that it is not mistaken for a template placeholder. */
export const BRACED_HOME = ["$", "{HOME}"].join("");
