/**
 * A fenced code block the text inside cannot close: the fence is longer than any run of its
 * character in the text, so a command or an output holding three backticks stays code, and cannot
 * go on as markdown the editor renders (a fake heading, a link, a second "Runs exactly").
 */
export function codeBlock(text: string, info = ""): string {
	const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
	const fence = "`".repeat(Math.max(3, longest + 1));
	return `${fence}${info}\n${text}${text.endsWith("\n") ? "" : "\n"}${fence}`;
}
