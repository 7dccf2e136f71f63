/**
 * The CLI's one step between evidence and a person. Renderers build lines; each line passes the
 * display rule (kernel/display/visible-text) as a whole just before it is printed, so a value inside
 * it, whatever it holds, is drawn as text: it cannot act on the terminal, overwrite what is beside
 * it, or start a line that looks like one of ours (its newlines are spelled, never line breaks).
 * The lines' own layout is printable text, which the rule leaves as it is. `--json` output is data
 * and does not pass here.
 */
import { visibleText } from "../../kernel/display/visible-text.js";

/** `lines`, each made visible and ended with a newline: what the CLI prints for a person. */
export function shownLines(lines: readonly string[]): string {
	return lines.map((line) => `${visibleText(line)}\n`).join("");
}

/**
 * `text` cut to at most `max` characters with a visible marker naming how much was left off. It is
 * cut by code point before the display rule spells it, so an escape is never cut in half.
 */
export function clipped(text: string, max: number): string {
	const chars = Array.from(text);
	return chars.length > max ? `${chars.slice(0, max).join("")}… (${chars.length - max} more)` : text;
}

/** Multi-line content (an answer, a diff) as the lines a renderer lays out; a trailing newline adds none. */
export function contentLines(text: string): string[] {
	return text.replace(/\n$/, "").split("\n");
}
