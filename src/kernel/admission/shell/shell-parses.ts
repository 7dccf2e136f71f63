/**
 * A session's shell parses: one parse per distinct command text, shared by everyone who reads the
 * command in that session (the decision, capability admission, the flow plane's egress analysis
 * and the shell primitive). Keyed by the exact text, so two texts never share a parse however
 * alike they look; bounded, least recently used first out. Every parse is frozen all the way down
 * before anyone sees it, so no reader can change what the next one decides on.
 */
import type { ParsedShell } from "./shell-types.js";

/** What parses a command: the tree-sitter parser, or a session's cache of it. */
export interface ShellParse {
	parse(source: string): ParsedShell;
}

/** Distinct command texts kept per session; a long session's oldest unused ones are parsed again if they come back. */
export const SHELL_PARSES_KEPT = 256;

/** Freezes a parse and everything it holds (commands, words, redirects, wrappers). */
export function frozenParse(parsed: ParsedShell): ParsedShell {
	return deepFreeze(parsed);
}

function deepFreeze<T>(value: T): T {
	if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
	for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
	return Object.freeze(value);
}

export class ShellParses implements ShellParse {
	private readonly kept = new Map<string, ParsedShell>();
	private made = 0;

	constructor(
		private readonly parser: ShellParse,
		private readonly limit = SHELL_PARSES_KEPT,
	) {
		if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a session keeps at least one shell parse, got ${limit}`);
	}

	/** How many times the parser itself ran: what the cache saved is every other read. */
	get parsesMade(): number {
		return this.made;
	}

	parse(source: string): ParsedShell {
		const kept = this.kept.get(source);
		if (kept !== undefined) {
			// Most recently used last: the Map's first key is the one to drop.
			this.kept.delete(source);
			this.kept.set(source, kept);
			return kept;
		}
		const parsed = frozenParse(this.parser.parse(source));
		this.made++;
		if (this.kept.size >= this.limit) this.kept.delete(this.kept.keys().next().value as string);
		this.kept.set(source, parsed);
		return parsed;
	}
}
