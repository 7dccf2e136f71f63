/**
 * Reading the expansions in a dynamic word's text (`$X/*`, `"${DIR}"`, `$(pwd)/build`): where they
 * are, and what the word could stand for when each of them could be anything.
 */

const PARAMETER = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/;
/** Characters that make a path segment match every name (or the parent): `*`, `.*`, `..`. */
const ALL_WILDCARD = /^[*?.[\]!]+$/;

/** Index just past the bracket that closes the one at `open`; the text's end when it never closes. */
function closing(text: string, open: number, left: string, right: string): number {
	let depth = 0;
	for (let i = open; i < text.length; i++) {
		if (text[i] === left) depth++;
		else if (text[i] === right && --depth === 0) return i + 1;
	}
	return text.length;
}

/** Length of the expansion that starts at `i` (`$X`, `${…}`, `$(…)`, `$((…))`, `` `…` ``); 0 when none does. */
export function expansionLength(text: string, i = 0): number {
	const c = text[i];
	if (c === "`") {
		const end = text.indexOf("`", i + 1);
		return (end === -1 ? text.length : end + 1) - i;
	}
	if (c !== "$") return 0;
	const next = text[i + 1];
	if (next === "(") return closing(text, i + 1, "(", ")") - i;
	if (next === "{") return closing(text, i + 1, "{", "}") - i;
	return PARAMETER.exec(text.slice(i))?.[0].length ?? 0;
}

/**
 * The word begins with expansions and nothing known follows but slashes or a segment matching
 * every name: `$X`, `"${X}"/`, `$X/*`, `$(pwd)/.*`. Such a path could be `/`, the home directory or
 * anything else — an empty variable turns `$X/*` into `/*`.
 */
export function rootedAtExpansion(text: string): boolean {
	let rest = text;
	let found = false;
	for (let n = expansionLength(rest); n > 0; n = expansionLength(rest)) {
		rest = rest.slice(n);
		found = true;
	}
	if (!found) return false;
	const first = rest.replace(/^\/+/, "").split("/")[0]!;
	return first === "" || ALL_WILDCARD.test(first);
}

/** The word as a glob in which every expansion matches anything: `/opt/$APP` → `/opt/*`, `~/$D.bak` → `~/*.bak`. */
export function expansionsAsGlob(text: string): string {
	let out = "";
	for (let i = 0; i < text.length; ) {
		const n = expansionLength(text, i);
		if (n > 0) {
			out += "*";
			i += n;
		} else {
			out += text[i];
			i++;
		}
	}
	return out;
}

/**
 * Bash evaluates arithmetic recursively: a variable whose value is `a[$(cmd)]` runs cmd when it
 * is used in `$((x))`, `${a[x]}` or `[[ x -eq 0 ]]`. So only arithmetic on numbers and on the
 * parameters that are always numbers (`$#`, `$?`, `${#x}`) is known not to run anything.
 */
const ARITHMETIC_ATOMS = [
	/\$\{#[A-Za-z_][A-Za-z0-9_]*(?:\[[@*]\])?\}/g,
	/\$[#?$!]/g,
	/\b0[xX][0-9a-fA-F]+\b/g,
	/\b[0-9]+#[0-9A-Za-z@_]+\b/g,
	/\b[0-9]+\b/g,
];
const ARITHMETIC_OPERATORS = /^[\s+\-*/%()<>=!&|^~?:,]*$/;

/** Why evaluating this arithmetic could run a command, or undefined when it holds only numbers. */
export function arithmeticRisk(expression: string): string | undefined {
	let rest = expression;
	for (const atom of ARITHMETIC_ATOMS) rest = rest.replace(atom, " ");
	if (ARITHMETIC_OPERATORS.test(rest)) return undefined;
	return "arithmetic on a variable or array element evaluates its value as code, which can run commands";
}

const NAME = "[A-Za-z_][A-Za-z0-9_]*";
/** `${!name*}`, `${!name@}`, `${!arr[@]}`: listing names or keys, no value is evaluated. */
const LISTING_INDIRECTION = new RegExp(`^!${NAME}(?:[*@]|\\[[@*]\\])$`);
const SUBSCRIPT = new RegExp(`^#?${NAME}\\[([^\\]]*)\\]`);
const SUBSTRING = new RegExp(`^${NAME}(?:\\[[^\\]]*\\])?:(?![-=?+])(.*)$`, "s");

/** Why one `${…}` expansion could run a command, looking only at its own text. */
function braceRisk(text: string): string | undefined {
	const inner = text.slice(2, text.endsWith("}") ? -1 : undefined);
	if (inner.includes("$(") || inner.includes("`")) return "a parameter expansion holds a command substitution";
	if (/@P$/.test(inner)) return "prompt expansion (the @P operator) runs the command substitutions held in the value";
	if (inner.startsWith("!") && !LISTING_INDIRECTION.test(inner)) return "indirect expansion (the ! operator) evaluates the name held in the value, which can run commands";
	const subscript = SUBSCRIPT.exec(inner)?.[1];
	if (subscript !== undefined && subscript !== "@" && subscript !== "*") {
		const risk = arithmeticRisk(subscript);
		if (risk) return `an array subscript is arithmetic: ${risk}`;
	}
	const substring = SUBSTRING.exec(inner)?.[1];
	if (substring !== undefined) {
		const risk = arithmeticRisk(substring.replace(/:/g, " "));
		if (risk) return `a substring offset is arithmetic: ${risk}`;
	}
	return undefined;
}

/**
 * Why expanding this text could run code that no command substitution in it shows: prompt
 * expansion, indirection, arithmetic on values, substitutions held inside `${…}`. Every `${`, `$((`
 * and `$[` in the text is looked at, nested ones included; undefined when none could.
 */
export function executingExpansion(text: string): string | undefined {
	for (let i = text.indexOf("$"); i !== -1; i = text.indexOf("$", i + 1)) {
		let slashes = 0;
		while (text[i - 1 - slashes] === "\\") slashes++;
		if (slashes % 2 === 1) continue;
		const next = text[i + 1];
		const length = expansionLength(text, i);
		if (next === "{") {
			const risk = braceRisk(text.slice(i, i + length));
			if (risk) return risk;
		} else if (next === "(" && text[i + 2] === "(") {
			const risk = arithmeticRisk(text.slice(i + 3, i + length - 2));
			if (risk) return risk;
		} else if (next === "[") {
			const end = text.indexOf("]", i);
			const risk = arithmeticRisk(text.slice(i + 2, end === -1 ? text.length : end));
			if (risk) return risk;
		}
	}
	return undefined;
}
