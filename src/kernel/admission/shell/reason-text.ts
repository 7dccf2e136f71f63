/**
 * Command text quoted inside a decision's reason: the reason is one line that an approval prompt
 * shows, so a line break or other control character the command carries is shown escaped, never
 * acted on (a script word holding "\n[y] approved" must not draw a line of its own).
 */
const BREAKS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** The same class, for the test that lets the common text (nothing to escape) through without a copy. */
const HAS_BREAK = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

export function reasonText(text: string): string {
	if (!HAS_BREAK.test(text)) return text;
	return text.replace(BREAKS, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
