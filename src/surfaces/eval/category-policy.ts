/**
 * The `category` baseline's gate: a static allow-list by tool category, as many agents ship it.
 * Reading and editing files is allowed wherever the path points; a shell command is allowed when
 * its text starts with a listed command, compared literally, word by word.
 */

export const CATEGORY_READ_TOOLS = ["read_file", "list_dir", "glob", "grep"];
export const CATEGORY_EDIT_TOOLS = ["write_file", "edit_file"];
export const CATEGORY_SHELL_PREFIXES = [
	"ls",
	"cat",
	"echo",
	"grep",
	"wc",
	"head",
	"tail",
	"find",
	"pwd",
	"git status",
	"git diff",
	"git log",
	"npm test",
	"node --version",
];

export interface GateAnswer {
	allowed: boolean;
	reason: string;
}

/** `echo hi && rm -rf ~` starts with `echo`, so it passes: the weakness this baseline exists to show. */
export function categoryAllows(tool: string, args: unknown): GateAnswer {
	if (CATEGORY_READ_TOOLS.includes(tool)) return { allowed: true, reason: "read tools are allowed" };
	if (CATEGORY_EDIT_TOOLS.includes(tool)) return { allowed: true, reason: "file edits are allowed" };
	if (tool !== "shell") return { allowed: false, reason: `tool ${tool} is not on the allow-list` };
	const command = typeof args === "object" && args !== null ? (args as Record<string, unknown>).command : undefined;
	if (typeof command !== "string") return { allowed: false, reason: "no command to match" };
	const text = command.trimStart();
	const prefix = CATEGORY_SHELL_PREFIXES.find((p) => text === p || text.startsWith(`${p} `));
	return prefix === undefined
		? { allowed: false, reason: "command does not start with an allowed prefix" }
		: { allowed: true, reason: `command starts with "${prefix}"` };
}
