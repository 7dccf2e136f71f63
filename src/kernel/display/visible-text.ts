/**
 * The one rule for text a person is shown. Text from the model, tools, files, commands, MCP servers
 * and configs may carry bytes a terminal (or an editor, or a browser) acts on instead of drawing:
 * escape sequences that retitle the window or write the clipboard, backspaces and carriage returns
 * that draw one command over another, bidi overrides that reorder it, characters that take no room.
 * A person approving `echo greeting` must see every byte of what runs, so each such character is
 * written as a visible escape, never passed through and never dropped.
 *
 * The escaped form is exact: `decodeVisibleText(visibleText(s)) === s` for every string, so what a
 * card shows is a faithful spelling of what the decision read. Escapes are `\xHH` (code points below
 * 0x100) and `\u{H…}` (the rest, lone surrogates included). A literal backslash is doubled only where
 * it would otherwise read as the start of an escape (before `x`, `u`, another backslash, or an escaped
 * character), so everyday shell text (`printf 'a\nb'`, `grep 'a\.b'`) is shown as written.
 */

export type VisibleTextOptions = {
	/** "keep" draws `\n` as a line break (output, messages); "escape" spells it (one-line fields). Default "escape". */
	readonly newlines?: "keep" | "escape";
	/** "keep" passes a tab through (output laid out in columns); "escape" spells it. Default "escape". */
	readonly tabs?: "keep" | "escape";
};

/**
 * Characters that are escaped: C0 and C1 controls and DEL; format characters (bidi marks, overrides
 * and isolates, zero-width spaces and joiners, word joiner, BOM, tag characters, interlinear
 * annotation marks); line and paragraph separators; every space other than U+0020 (a no-break space
 * inside `rm -rf` makes one word that looks like two); and letters that are drawn as nothing
 * (Hangul fillers, the Mongolian vowel separator and free variation selectors, the combining grapheme
 * joiner, the Khmer inherent vowels). Lone surrogates are handled separately.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u115f\u1160\u180e\u3164\uffa0]/u;
/** Combining marks drawn as nothing; a set, since a character class mixing them with letters misleads. */
const BLANK_MARKS = new Set(["\u034f", "\u17b4", "\u17b5", "\u180b", "\u180c", "\u180d", "\u180f"]);

const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const ZERO_WIDTH_JOINER = "\u200d";

/** `text` with every character a person could not see, or that a terminal would act on, spelled out. */
export function visibleText(text: string, options: VisibleTextOptions = {}): string {
	const chars = Array.from(text);
	const escaped = chars.map((char, i) => mustEscape(char, chars[i - 1], chars[i + 1], options));
	let out = "";
	for (let i = 0; i < chars.length; i++) {
		const char = chars[i] as string;
		if (escaped[i]) {
			out += escapeOf(char);
			continue;
		}
		if (char === "\\" && i + 1 < chars.length) {
			const next = chars[i + 1] as string;
			if (escaped[i + 1] || next === "\\" || next === "x" || next === "u") {
				out += "\\\\";
				continue;
			}
		}
		out += char;
	}
	return out;
}

/** Whether `visibleText` would change anything: the text holds something a person could not see as written. */
export function hasHiddenCharacters(text: string, options: VisibleTextOptions = {}): boolean {
	const chars = Array.from(text);
	return chars.some((char, i) => mustEscape(char, chars[i - 1], chars[i + 1], options));
}

/**
 * The exact inverse of `visibleText`: what was spelled out is turned back into the characters it
 * names. Throws on an escape that `visibleText` never writes (a truncated `\x` or `\u{`).
 */
export function decodeVisibleText(shown: string): string {
	let out = "";
	let i = 0;
	while (i < shown.length) {
		const char = shown[i] as string;
		if (char !== "\\") {
			out += char;
			i += 1;
			continue;
		}
		const next = shown[i + 1];
		if (next === "\\") {
			out += "\\";
			i += 2;
		} else if (next === "x") {
			const hex = shown.slice(i + 2, i + 4);
			if (!/^[0-9a-f]{2}$/.test(hex)) throw new Error(`malformed \\x escape at offset ${i}`);
			out += String.fromCharCode(Number.parseInt(hex, 16));
			i += 4;
		} else if (next === "u") {
			const match = /^\{([0-9a-f]{1,6})\}/.exec(shown.slice(i + 2));
			if (!match) throw new Error(`malformed \\u escape at offset ${i}`);
			const code = Number.parseInt(match[1] as string, 16);
			// A lone surrogate was written from one UTF-16 unit; fromCodePoint gives it back as one.
			out += code >= 0xd800 && code <= 0xdfff ? String.fromCharCode(code) : String.fromCodePoint(code);
			i += 3 + (match[1] as string).length + 1;
		} else {
			out += "\\";
			i += 1;
		}
	}
	return out;
}

function mustEscape(char: string, before: string | undefined, after: string | undefined, options: VisibleTextOptions): boolean {
	if (char === "\n") return options.newlines !== "keep";
	if (char === "\t") return options.tabs !== "keep";
	// Array.from keeps a lone surrogate as a one-unit string; a pair is one two-unit string.
	if (char.length === 1 && isSurrogate(char.charCodeAt(0))) return true;
	// A joiner between two pictographs draws one emoji (a family, a flag sequence); anywhere else it is hidden.
	if (char === ZERO_WIDTH_JOINER) return !(before !== undefined && after !== undefined && PICTOGRAPH.test(before) && PICTOGRAPH.test(after));
	return HIDDEN.test(char) || BLANK_MARKS.has(char);
}

function escapeOf(char: string): string {
	const code = char.length === 1 ? char.charCodeAt(0) : (char.codePointAt(0) as number);
	return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
}

function isSurrogate(unit: number): boolean {
	return unit >= 0xd800 && unit <= 0xdfff;
}
