/** Turning tree-sitter word nodes into shell words: quote removal, escapes, brace expansion. */
import type { ShellWord } from "./shell-types.js";
import type { SyntaxNode as Node } from "./syntax-tree.js";

/** Quoted or escaped brace characters are masked so brace expansion leaves them alone. */
const MASK: Record<string, string> = { "{": "\uE000", ",": "\uE001", "}": "\uE002" };
const UNMASK: Record<string, string> = { "\uE000": "{", "\uE001": ",", "\uE002": "}" };
/** Past this many words a brace expression is treated as run-time data rather than enumerated. */
const MAX_EXPANSION = 256;

interface Piece {
	/** The text after quote and escape removal, quoted brace characters masked; expansions stay as written. */
	masked: string;
	/** Text to show when the word is dynamic. */
	display: string;
	static: boolean;
}

const mask = (text: string): string => text.replace(/[{,}]/g, (c) => MASK[c] ?? c);
const unmask = (text: string): string => text.replace(/[\uE000-\uE002]/g, (c) => UNMASK[c] ?? c);

function unescapeBare(text: string): string {
	let out = "";
	for (let i = 0; i < text.length; i++) {
		const c = text[i]!;
		if (c === "\\" && i + 1 < text.length) {
			const next = text[++i]!;
			if (next !== "\n") out += mask(next);
		} else {
			out += c;
		}
	}
	return out;
}

function unescapeDouble(text: string): string {
	return text.replace(/\\([\\"$`\n])/g, (_m, c: string) => (c === "\n" ? "" : c));
}

const ANSI_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "\\": "\\", "'": "'", '"': '"' };

function decodeAnsiC(text: string): string {
	return text.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_m, seq: string) => {
		if (seq.startsWith("x")) return String.fromCharCode(Number.parseInt(seq.slice(1), 16));
		if (/^[0-7]+$/.test(seq)) return String.fromCharCode(Number.parseInt(seq, 8));
		return ANSI_ESCAPES[seq] ?? `\\${seq}`;
	});
}

const DYNAMIC_IN_STRING = new Set(["simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"]);

function piece(node: Node): Piece {
	switch (node.type) {
		case "word":
			return { masked: unescapeBare(node.text), display: node.text, static: true };
		case "number":
		case "brace_expression":
			return { masked: node.text, display: node.text, static: true };
		case "raw_string": {
			const inner = node.text.slice(1, -1);
			return { masked: mask(inner), display: inner, static: true };
		}
		case "string": {
			const inner = node.text.slice(1, -1);
			const dynamic = node.namedChildren.some((c) => c !== null && DYNAMIC_IN_STRING.has(c.type));
			return { masked: mask(unescapeDouble(inner)), display: inner, static: !dynamic };
		}
		case "ansi_c_string": {
			const inner = decodeAnsiC(node.text.slice(2, -1));
			return { masked: mask(inner), display: inner, static: true };
		}
		case "translated_string":
			return piece(node.namedChildren[0] ?? node);
		case "concatenation": {
			const parts = node.children.filter((c): c is Node => c !== null).map(piece);
			return {
				masked: parts.map((p) => p.masked).join(""),
				display: parts.map((p) => p.display).join(""),
				static: parts.every((p) => p.static),
			};
		}
		case "command_name": {
			const inner = node.namedChildren[0];
			return inner ? piece(inner) : { masked: "", display: "", static: true };
		}
		default:
			return { masked: node.text, display: node.text, static: false };
	}
}

/** The words of a range `from..to`; `null` when it is too large, undefined when it is not a range. */
function range(from: string, to: string): string[] | null | undefined {
	if (/^-?\d+$/.test(from) && /^-?\d+$/.test(to)) {
		const a = Number(from);
		const b = Number(to);
		if (Math.abs(b - a) >= MAX_EXPANSION) return null;
		const step = a <= b ? 1 : -1;
		const out: string[] = [];
		for (let n = a; n !== b + step; n += step) out.push(String(n));
		return out;
	}
	if (from.length === 1 && to.length === 1) {
		const a = from.charCodeAt(0);
		const b = to.charCodeAt(0);
		const step = a <= b ? 1 : -1;
		const out: string[] = [];
		for (let n = a; n !== b + step; n += step) out.push(String.fromCharCode(n));
		return out;
	}
	return undefined;
}

/** Alternatives of the brace body `a,b{c,d}` split at top-level commas, or a range `1..3` (null: too large). */
function alternatives(body: string): string[] | null | undefined {
	const parts: string[] = [];
	let depth = 0;
	let start = 0;
	for (let i = 0; i < body.length; i++) {
		const c = body[i];
		if (c === "{") depth++;
		else if (c === "}") depth--;
		else if (c === "," && depth === 0) {
			parts.push(body.slice(start, i));
			start = i + 1;
		}
	}
	if (parts.length > 0) {
		parts.push(body.slice(start));
		return parts;
	}
	const m = /^([^.]+)\.\.([^.]+)$/.exec(body);
	return m ? range(m[1]!, m[2]!) : undefined;
}

/** Bash brace expansion over a masked string; undefined when it would produce too many words. */
export function braceExpand(text: string): string[] | undefined {
	for (let open = text.indexOf("{"); open !== -1; open = text.indexOf("{", open + 1)) {
		let depth = 0;
		for (let close = open; close < text.length; close++) {
			if (text[close] === "{") depth++;
			else if (text[close] === "}" && --depth === 0) {
				const alts = alternatives(text.slice(open + 1, close));
				if (alts === null) return undefined;
				if (!alts) break;
				const out: string[] = [];
				for (const alt of alts) {
					const expanded = braceExpand(text.slice(0, open) + alt + text.slice(close + 1));
					if (!expanded) return undefined;
					out.push(...expanded);
					if (out.length > MAX_EXPANSION) return undefined;
				}
				return out;
			}
		}
	}
	return [text];
}

function dynamicWord(p: Piece): ShellWord {
	return { value: p.display, static: false, scriptText: unmask(p.masked) };
}

/** The words one argument node stands for (more than one after brace expansion). */
export function wordsOf(node: Node): ShellWord[] {
	const p = piece(node);
	if (!p.static) return [dynamicWord(p)];
	const expanded = braceExpand(p.masked);
	if (!expanded) return [{ value: p.display, static: false }];
	return expanded.map((w) => ({ value: unmask(w), static: true }));
}

/** The single word a node stands for, without brace expansion (program names, redirect targets). */
export function wordOf(node: Node): ShellWord {
	const p = piece(node);
	return p.static ? { value: unmask(p.masked), static: true } : dynamicWord(p);
}
