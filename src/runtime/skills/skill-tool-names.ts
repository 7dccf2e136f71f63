/**
 * The tool names other agents' skills write in `allowed-tools` (Claude Code's, which most published
 * skills use), and the Warden tool each one means. Data, one test per row. A name not in the table
 * is taken as a Warden tool name or tool-name glob as written.
 */
export const SKILL_TOOL_ALIASES: Readonly<Record<string, string>> = {
	Bash: "shell",
	Read: "read_file",
	Write: "write_file",
	Edit: "edit_file",
	MultiEdit: "edit_file",
	Glob: "glob",
	Grep: "grep",
	LS: "list_dir",
	WebFetch: "web_fetch",
	Task: "agent",
	TodoWrite: "todo_write",
};

/** `Bash(git:*)` is Claude Code's prefix form: the same as Warden's `shell(git *)`. */
const PREFIX_FORM = /:\*\s*$/;

/** One `allowed-tools` entry in Warden's rule syntax: the tool name mapped, the prefix form rewritten. */
export function wardenRuleText(entry: string): string {
	const open = entry.indexOf("(");
	const name = open === -1 ? entry : entry.slice(0, open);
	const mapped = SKILL_TOOL_ALIASES[name] ?? name;
	if (open === -1) return mapped;
	const close = entry.lastIndexOf(")");
	const inner = entry.slice(open + 1, close === -1 ? undefined : close);
	const pattern = PREFIX_FORM.test(inner) ? inner.replace(PREFIX_FORM, " *") : inner;
	return `${mapped}(${pattern})${close === -1 ? "" : entry.slice(close + 1)}`;
}

/**
 * Splits `allowed-tools` into entries: the spec's space-separated string (commas tolerated), where
 * spaces inside parentheses belong to the entry (`shell(git log *)`), or a YAML list of strings.
 * Undefined when the text leaves a parenthesis open.
 */
export function splitAllowedTools(text: string): string[] | undefined {
	const entries: string[] = [];
	let current = "";
	let depth = 0;
	for (const ch of text) {
		if (ch === "(") depth++;
		if (ch === ")") depth--;
		if (depth < 0) return undefined;
		if (depth === 0 && (ch === "," || /\s/.test(ch))) {
			if (current !== "") entries.push(current);
			current = "";
			continue;
		}
		current += ch;
	}
	if (depth !== 0) return undefined;
	if (current !== "") entries.push(current);
	return entries;
}
