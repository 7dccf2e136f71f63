/**
 * Whether an awk program provably only prints. awk runs commands (`system()`, `print | "cmd"`,
 * `"cmd" | getline`, gawk's `|&`), writes files (`print > "f"`, `>>`), and gawk adds indirect calls
 * and extensions (`@fn()`, `@load`, `@include`). Strings and regular expressions cannot be told
 * apart from code without a full awk parser, so the check reads the raw text and refuses on any
 * sign of these: a `|` that is not `||`, a `>` anywhere after a print statement starts, the names
 * `system`, `getline` and `close`, and `@`. It may refuse a pure program; it never allows one of these.
 */

const RULES: readonly [pattern: RegExp, why: string][] = [
	[/\bsystem\b/, "calls system(), which runs a shell command"],
	[/(^|[^|])\|(?!\|)/, "pipes to or from a command"],
	[/\bgetline\b/, "reads with getline, which can run a command or read any file"],
	[/\bclose\b/, "closes a command or file stream"],
	[/@/, "uses a gawk indirect call or directive (@fn, @load, @include)"],
	[/\bprintf?\b[\s\S]*>/, "redirects print output to a file"],
];

/** Why the program may do more than print, or undefined when it provably only prints. */
export function awkProgramRisk(program: string): string | undefined {
	for (const [pattern, why] of RULES) {
		if (pattern.test(program)) return why;
	}
	return undefined;
}
