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

/** The shell text `${inner}` (a braced parameter expansion), spelled the same way. */
export const braced = (inner: string): string => ["$", "{", inner, "}"].join("");

/**
 * A stand-in for the host's `resolvePath` over a table of symlinks (`link → target`), followed for
 * paths below a link too; every other path resolves to itself, as an existing plain file would.
 */
export function symlinkResolver(links: Readonly<Record<string, string>>): (absolutePath: string) => string {
	return (absolutePath) => {
		for (const [link, target] of Object.entries(links)) {
			if (absolutePath === link) return target;
			if (absolutePath.startsWith(`${link}/`)) return target + absolutePath.slice(link.length);
		}
		return absolutePath;
	};
}
