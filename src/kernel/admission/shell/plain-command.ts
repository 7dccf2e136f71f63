/**
 * Reading a command that is only plain words, quotes and the list operators `|`, `||`, `&&`, `;`
 * without tree-sitter. Such text (`git status --short src`, `cat a | head -n 20`, `bash -c "npm test"`)
 * is most of what agents run, and for it the syntax tree holds nothing a scan cannot see: every
 * word is static, nothing expands, nothing redirects. Anything else (`$`, backquotes, backslashes,
 * redirects, braces, brackets, parentheses, `&`, `#`, `!`, newlines, keywords, assignments) is left
 * to the grammar: the scan answers undefined, and a differential test holds the two readings equal
 * over a generated corpus.
 */
import type { ShellWord } from "./shell-types.js";

export interface PlainCommand {
	words: ShellWord[];
	/** Where the command's text starts and ends in the source. */
	start: number;
	end: number;
	/** Part of a pipeline of two or more commands. */
	inPipeline: boolean;
}

/** Unquoted characters a plain word may hold: none of them is special to bash or to the grammar. */
const BARE = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:,+@%=~*?-") BARE[c.charCodeAt(0)] = 1;

/** Inside quotes, these still mean something (expansion, escapes, history, braces the scan does not mask). */
const NOT_IN_QUOTES = /[$`\\!{}\n\r]/;

/** Words that open a construct or a declaration in first position: the grammar gives them their own nodes. */
const KEYWORDS = new Set([
	"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in",
	"function", "time", "coproc", "declare", "typeset", "export", "readonly", "local", "unset", "unsetenv",
]);

/**
 * The grammar nests each `&&` and `||` a level deeper, and the parser refuses a tree past its depth
 * limit (shell-parser.ts); a line of more commands than this goes to the grammar, so that a long
 * chain is refused the same way whichever reader sees it first.
 */
const MAX_COMMANDS = 32;

const SPACE = 0x20;
const PIPE = 0x7c;
const AMP = 0x26;
const SEMI = 0x3b;
const DQUOTE = 0x22;
const SQUOTE = 0x27;
const EQUALS = 0x3d;

/** The simple commands of a plain command line, or undefined when it needs the grammar. */
export function plainCommands(source: string): PlainCommand[] | undefined {
	const out: PlainCommand[] = [];
	let pipeline: PlainCommand[] = [];
	let words: ShellWord[] = [];
	let start = 0;
	let end = 0;
	const endCommand = (): boolean => {
		if (words.length === 0 || out.length + pipeline.length >= MAX_COMMANDS) return false;
		pipeline.push({ words, start, end, inPipeline: false });
		words = [];
		return true;
	};
	const endPipeline = (): void => {
		const inPipeline = pipeline.length > 1;
		for (const c of pipeline) {
			c.inPipeline = inPipeline;
			out.push(c);
		}
		pipeline = [];
	};
	const n = source.length;
	let i = 0;
	while (i < n) {
		const c = source.charCodeAt(i);
		if (c === SPACE) {
			i++;
			continue;
		}
		if (c === PIPE || c === AMP || c === SEMI) {
			if (!endCommand()) return undefined;
			const doubled = source.charCodeAt(i + 1) === c;
			if (c === AMP && !doubled) return undefined;
			if (c === SEMI && doubled) return undefined;
			// The grammar reads `a | b | c && d` as `a | (b | c && d)`; so that both readings agree, such a line goes to it.
			if (c !== SEMI && doubled && pipeline.length > 2) return undefined;
			if (c !== PIPE || doubled) endPipeline();
			i += doubled ? 2 : 1;
			continue;
		}
		const wordStart = i;
		let value = "";
		let assignment = false;
		while (i < n) {
			const ch = source.charCodeAt(i);
			if (ch < 128 && BARE[ch] === 1) {
				let run = i + 1;
				while (run < n) {
					const next = source.charCodeAt(run);
					if (next >= 128 || BARE[next] !== 1) break;
					run++;
				}
				const text = source.slice(i, run);
				// `NAME=value` before the program is an assignment, and `=` right after a quote may be one too.
				if (text.charCodeAt(0) === EQUALS || text.includes("=")) assignment = true;
				value += text;
				i = run;
			} else if (ch === DQUOTE || ch === SQUOTE) {
				const close = source.indexOf(ch === DQUOTE ? '"' : "'", i + 1);
				if (close === -1) return undefined;
				const inner = source.slice(i + 1, close);
				if (NOT_IN_QUOTES.test(inner)) return undefined;
				value += inner;
				i = close + 1;
			} else {
				break;
			}
		}
		if (i === wordStart) return undefined;
		if (words.length === 0) {
			// The grammar drops a lone `-` before an assignment (`- A=b ls`); no program's name starts with one.
			if (assignment || KEYWORDS.has(value) || value.charCodeAt(0) === 0x2d) return undefined;
			start = wordStart;
		}
		words.push({ value, static: true });
		end = i;
	}
	if (!endCommand()) return undefined;
	endPipeline();
	return out;
}
