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
