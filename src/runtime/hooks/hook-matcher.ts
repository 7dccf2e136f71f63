/**
 * A matcher is a regular expression over the whole name it is matched against (a tool name such
 * as `write_file` or `mcp__server__tool`), as Claude Code reads it: `Edit|Write` is either tool,
 * `mcp__github__.*` every tool of one server; empty or `*` matches everything.
 */

/** The compiled matcher, or undefined for one that matches everything; throws SyntaxError for a bad expression. */
export function matcherPattern(matcher: string): RegExp | undefined {
	if (matcher === "" || matcher === "*") return undefined;
	return new RegExp(`^(?:${matcher})$`, "u");
}

/** Why `matcher` is not a regular expression, or undefined when it is one. */
export function matcherProblem(matcher: string): string | undefined {
	try {
		matcherPattern(matcher);
		return undefined;
	} catch (err) {
		return `matcher ${JSON.stringify(matcher)} is not a valid regular expression (${(err as Error).message.replace(/^Invalid regular expression: /, "")})`;
	}
}
