/**
 * Text from outside Warden (the model, tools, files, commands, MCP servers, configs) as the terminal
 * may draw it: through the one display rule (src/kernel/display/visible-text.ts), so an escape
 * sequence, a backspace or carriage-return overwrite, a bidi override or an invisible character is
 * shown spelled out, never interpreted and never dropped. The screen, --plain and the --on-ask prompt
 * all draw through these.
 */
import { visibleText } from "../../kernel/display/visible-text.js";

/** A tab drawn as spaces: the terminal's own tab stops would move the cursor past text it owns. */
const TAB = "    ";

/** One line of a command's output (or a diff, a file): a CRLF line end reads as a line end. */
export function displayLine(text: string): string {
	return visibleText(text.endsWith("\r") ? text.slice(0, -1) : text, { tabs: "keep" }).replace(/\t/g, TAB);
}

/** Text of many lines (a message, an answer, a notice): line breaks kept, every other control spelled. */
export function displayText(text: string): string {
	return visibleText(text.replace(/\r\n/g, "\n"), { newlines: "keep", tabs: "keep" }).replace(/\t/g, TAB);
}

/** A one-line field (a command, a path, a reason, a name): a line break is spelled too, so one field stays one line. */
export function displayField(text: string): string {
	return visibleText(text);
}

/** One escape, a doubled backslash, or one character: a cut never splits what the rule spelled. */
const UNIT = /\\x[0-9a-f]{2}|\\u\{[0-9a-f]{1,6}\}|\\\\|[\s\S]/gu;

/**
 * Already-displayed text cut to about `max` characters, with a marker that says how much is left
 * out (and, through `more`, how to see it): nothing is ever cut silently.
 */
export function cutShown(shown: string, max: number, more = ""): string {
	if (shown.length <= max) return shown;
	let head = "";
	for (const unit of shown.match(UNIT) ?? []) {
		if (head.length + unit.length > max) break;
		head += unit;
	}
	return `${head}… (${shown.length - head.length} more characters${more})`;
}
