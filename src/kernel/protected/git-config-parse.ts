/**
 * Git's config file format, read the way git reads it: `[section]`, `[section "subsection"]` and the
 * old `[section.subsection]`, `name = value` (a name alone is a boolean true), values with double
 * quotes, the escapes `\\ \" \n \t \b`, a backslash at the end of a line continuing the value, and
 * `#` / `;` comments outside quotes. What git would refuse (`fatal: bad config line N`) is refused
 * here too, with the line, so a caller can fail closed instead of guessing what git would run.
 */

export interface GitConfigEntry {
	/** Lower-cased, as git compares it. */
	section: string;
	/** As written: git compares subsections case-sensitively (except the old dotted form, lower-cased). */
	subsection?: string;
	/** Lower-cased. */
	name: string;
	/** Undefined for a name with no `=` (git reads it as true). */
	value?: string;
	/** The 1-based line the entry starts on. */
	line: number;
}

export class GitConfigSyntaxError extends Error {
	override name = "GitConfigSyntaxError";

	constructor(readonly line: number, what: string) {
		super(`bad config line ${line}: ${what}`);
	}
}

/** `section.subsection.name` with section and name lower-cased, as `git config --list` prints it. */
export function entryKey(e: GitConfigEntry): string {
	if (e.section === "") return e.name;
	return e.subsection === undefined ? `${e.section}.${e.name}` : `${e.section}.${e.subsection}.${e.name}`;
}

const SECTION_CHAR = /[A-Za-z0-9.-]/;
const NAME_START = /[A-Za-z]/;
const NAME_CHAR = /[A-Za-z0-9-]/;

export function parseGitConfig(text: string): GitConfigEntry[] {
	const src = text.startsWith("\uFEFF") ? text.slice(1) : text;
	const entries: GitConfigEntry[] = [];
	let i = 0;
	let line = 1;
	let section: { name: string; subsection?: string } | undefined;
	const peek = () => src[i];
	const skipBlank = () => {
		while (i < src.length && (src[i] === " " || src[i] === "\t" || src[i] === "\r")) i++;
	};
	const skipComment = () => {
		while (i < src.length && src[i] !== "\n") i++;
	};

	const readHeader = () => {
		i++; // [
		let name = "";
		while (i < src.length && SECTION_CHAR.test(src[i]!)) name += src[i++];
		if (name === "") throw new GitConfigSyntaxError(line, "a section header without a name");
		let subsection: string | undefined;
		if (src[i] === " " || src[i] === "\t") {
			skipBlank();
			if (src[i] !== '"') throw new GitConfigSyntaxError(line, "a subsection must be in double quotes");
			i++;
			subsection = "";
			for (;;) {
				const c = src[i];
				if (c === undefined || c === "\n") throw new GitConfigSyntaxError(line, "an unterminated subsection");
				i++;
				if (c === '"') break;
				if (c === "\\") {
					const n = src[i];
					if (n === undefined || n === "\n") throw new GitConfigSyntaxError(line, "an unterminated subsection");
					subsection += n;
					i++;
				} else subsection += c;
			}
		}
		if (src[i] !== "]") throw new GitConfigSyntaxError(line, "a section header without its closing ]");
		i++;
		if (subsection === undefined) {
			const dot = name.indexOf(".");
			if (dot >= 0) {
				subsection = name.slice(dot + 1).toLowerCase();
				name = name.slice(0, dot);
			}
		}
		section = { name: name.toLowerCase(), ...(subsection !== undefined ? { subsection } : {}) };
	};

	const readValue = (): string => {
		let value = "";
		let quoted = false;
		// Whitespace outside quotes is kept only when something follows it on the value.
		let pendingSpace = "";
		for (;;) {
			const c = src[i];
			if (c === undefined || c === "\n") {
				if (quoted) throw new GitConfigSyntaxError(line, "an unterminated quote");
				return value;
			}
			i++;
			if (!quoted && (c === "#" || c === ";")) {
				skipComment();
				return value;
			}
			if (!quoted && (c === " " || c === "\t" || c === "\r")) {
				if (value !== "") pendingSpace += c === "\r" ? "" : c;
				continue;
			}
			value += pendingSpace;
			pendingSpace = "";
			if (c === '"') {
				quoted = !quoted;
				continue;
			}
			if (c === "\\") {
				const n = src[i];
				i++;
				if (n === "\n") {
					line++;
					continue;
				}
				if (n === "\r" && src[i] === "\n") {
					i++;
					line++;
					continue;
				}
				const escaped = n === "\\" ? "\\" : n === '"' ? '"' : n === "n" ? "\n" : n === "t" ? "\t" : n === "b" ? "\b" : undefined;
				if (escaped === undefined) throw new GitConfigSyntaxError(line, `an unknown escape \\${n ?? ""}`);
				value += escaped;
				continue;
			}
			value += c;
		}
	};

	while (i < src.length) {
		skipBlank();
		const c = peek();
		if (c === undefined) break;
		if (c === "\n") {
			i++;
			line++;
			continue;
		}
		if (c === "#" || c === ";") {
			skipComment();
			continue;
		}
		if (c === "[") {
			readHeader();
			continue;
		}
		if (!NAME_START.test(c)) throw new GitConfigSyntaxError(line, `an unexpected ${JSON.stringify(c)}`);
		const start = line;
		let name = "";
		while (i < src.length && NAME_CHAR.test(src[i]!)) name += src[i++];
		skipBlank();
		let value: string | undefined;
		if (src[i] === "=") {
			i++;
			skipBlank();
			value = readValue();
		} else if (src[i] !== undefined && src[i] !== "\n") throw new GitConfigSyntaxError(line, `an unexpected ${JSON.stringify(src[i])} after ${name}`);
		// Git reads a variable before any header as one of no section: no key git acts on is spelled so.
		const sec = section ?? { name: "" };
		entries.push({ section: sec.name, ...(sec.subsection !== undefined ? { subsection: sec.subsection } : {}), name: name.toLowerCase(), ...(value !== undefined ? { value } : {}), line: start });
	}
	return entries;
}
