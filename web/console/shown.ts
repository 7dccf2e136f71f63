/**
 * The page's one step between evidence and the screen. React writes every string as text, never as
 * HTML, but a browser still draws what a string holds: a bidi override reorders a command, a
 * zero-width space or a control hides part of it. So every string from evidence (the model's, a
 * tool's, a file's, a config's) is drawn through these, which apply the display rule
 * (kernel/display/visible-text, the same as every other surface) and spell such characters.
 * Ids and numbers the page builds links from are not evidence text and need none.
 */
import { visibleText } from "../../src/kernel/display/visible-text.js";
import { clipped } from "../../src/surfaces/cli/shown-lines.js";

/** A one-line field: its newlines are spelled too, so it cannot look like two. */
export function shown(text: string): string {
	return visibleText(text);
}

/** Text drawn as lines (a command, JSON, a diff) in a <pre>: its own newlines stay line breaks. */
export function shownBlock(text: string): string {
	return visibleText(text, { newlines: "keep" });
}

/** A one-line field cut to `max` characters by code point, with a marker naming what was left off. */
export function shownClipped(text: string, max: number): string {
	return shown(clipped(text, max));
}
