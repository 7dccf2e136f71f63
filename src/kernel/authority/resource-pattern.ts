/**
 * Resource patterns: a kind prefix and a glob over the canonical resource. For `fs:` patterns `*`
 * and `?` stay within one path segment, `**` spans segments, and a trailing `/**` also matches the
 * directory itself (`fs:secrets/**` covers `fs:secrets`). For every other kind `*` and `**` match
 * any run of characters and `?` any one character: a command or an origin has no segments.
 *
 * Containment (`patternContains`) is a sound approximation: it says yes only when every resource
 * the inner pattern can match is provably matched by the outer one, by covering each token of the
 * inner glob with tokens of the outer glob at least as permissive. It may say no to a pattern that
 * is in fact contained; a delegation is then refused, never widened.
 */
import { AuthorityFormatError } from "./authority-errors.js";
import { type ResourceKind, resourceKind } from "./resource.js";

export type Token = { t: "lit"; c: string } | { t: "one" } | { t: "seg" } | { t: "any" };

export interface ResourcePattern {
	text: string;
	kind: ResourceKind;
	/** Each alternative is a token list; a resource matches when any alternative does. */
	alternatives: Token[][];
	regex: RegExp;
}

const cache = new Map<string, ResourcePattern>();

export function parsePattern(text: string): ResourcePattern {
	const cached = cache.get(text);
	if (cached) return cached;
	const kind = resourceKind(text);
	if (kind === undefined) throw new AuthorityFormatError(`resource pattern ${JSON.stringify(text)} must start with fs:, shell:, net:, llm:, human:, mcp: or memory:`);
	const glob = text.slice(kind.length + 1);
	if (glob === "") throw new AuthorityFormatError(`resource pattern ${JSON.stringify(text)} names nothing after "${kind}:"`);
	const segmented = kind === "fs";
	const full = tokenize(glob, segmented);
	const alternatives = segmented && glob.endsWith("/**") && glob.length > 3 ? [tokenize(glob.slice(0, -3), true), full] : [full];
	const regex = new RegExp(`^(?:${alternatives.map((alt) => alt.map((tok) => tokenRegex(tok, segmented)).join("")).join("|")})$`);
	const pattern: ResourcePattern = { text, kind, alternatives, regex };
	if (cache.size > 5000) cache.clear();
	cache.set(text, pattern);
	return pattern;
}

function tokenize(glob: string, segmented: boolean): Token[] {
	const tokens: Token[] = [];
	for (let i = 0; i < glob.length; i++) {
		const c = glob[i]!;
		if (c === "*") {
			const double = glob[i + 1] === "*";
			if (double) i++;
			while (glob[i + 1] === "*") i++;
			tokens.push({ t: double || !segmented ? "any" : "seg" });
		} else if (c === "?") tokens.push({ t: "one" });
		else tokens.push({ t: "lit", c });
	}
	return tokens;
}

function tokenRegex(tok: Token, segmented: boolean): string {
	switch (tok.t) {
		case "lit":
			return tok.c.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
		case "one":
			return segmented ? "[^/]" : "[\\s\\S]";
		case "seg":
			return "[^/]*";
		case "any":
			return "[\\s\\S]*";
	}
}

/**
 * The text every resource the pattern matches starts with (after the kind): the literal run before
 * the first glob character, common to all alternatives (`fs:src/**` gives `src`, since it also
 * matches the directory `src` itself).
 */
export function literalPrefix(pattern: ResourcePattern): string {
	let prefix: string | undefined;
	for (const alt of pattern.alternatives) {
		let lit = "";
		for (const tok of alt) {
			if (tok.t !== "lit") break;
			lit += tok.c;
		}
		if (prefix === undefined) prefix = lit;
		else {
			let n = 0;
			while (n < prefix.length && n < lit.length && prefix[n] === lit[n]) n++;
			prefix = prefix.slice(0, n);
		}
	}
	return prefix ?? "";
}

/** Whether the canonical resource is matched by the pattern (kinds must agree). */
export function patternMatches(pattern: ResourcePattern | string, resource: string): boolean {
	const p = typeof pattern === "string" ? parsePattern(pattern) : pattern;
	if (resourceKind(resource) !== p.kind) return false;
	return p.regex.test(resource.slice(p.kind.length + 1));
}

/** True only if every resource `inner` matches is also matched by `outer` (sound, not complete). */
export function patternContains(outer: ResourcePattern | string, inner: ResourcePattern | string): boolean {
	const o = typeof outer === "string" ? parsePattern(outer) : outer;
	const i = typeof inner === "string" ? parsePattern(inner) : inner;
	if (o.kind !== i.kind) return false;
	const segmented = o.kind === "fs";
	return i.alternatives.every((child) => o.alternatives.some((parent) => covers(parent, child, segmented)));
}

/** Whether the parent token list matches every string the child token list can match. */
function covers(parent: Token[], child: Token[], segmented: boolean): boolean {
	const memo = new Map<number, boolean>();
	const width = child.length + 1;
	const go = (i: number, j: number): boolean => {
		const key = i * width + j;
		const known = memo.get(key);
		if (known !== undefined) return known;
		let result: boolean;
		if (j === child.length) result = parent.slice(i).every((t) => t.t === "seg" || t.t === "any");
		else if (i === parent.length) result = false;
		else {
			const p = parent[i]!;
			const c = child[j]!;
			switch (p.t) {
				case "any":
					result = go(i + 1, j) || go(i, j + 1);
					break;
				case "seg":
					result = go(i + 1, j) || (staysInSegment(c) && go(i, j + 1));
					break;
				case "one":
					result = (c.t === "one" || (c.t === "lit" && (!segmented || c.c !== "/"))) && go(i + 1, j + 1);
					break;
				case "lit":
					result = c.t === "lit" && c.c === p.c && go(i + 1, j + 1);
					break;
			}
		}
		memo.set(key, result);
		return result;
	};
	return go(0, 0);
}

/** A child token whose every match is free of `/` (only asked of fs patterns, where `seg` exists). */
function staysInSegment(tok: Token): boolean {
	return tok.t === "seg" || tok.t === "one" || (tok.t === "lit" && tok.c !== "/");
}
