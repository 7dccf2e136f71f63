/**
 * Command patterns such as `git push *` or `rm -rf *`, compared with parsed sub-commands after both
 * sides went through the same flag normalization. A trailing `*` stands for any remaining arguments.
 */
import { normalizeArgs } from "./shell/flag-normalization.js";
import type { ShellWord, SimpleCommand } from "./shell/shell-types.js";
import { basename } from "./shell/wrappers.js";
import { wordGlob } from "./glob-match.js";

export interface CommandPattern {
	/** `*` alone: any command. */
	any: boolean;
	program: string;
	flags: string[];
	operands: string[];
	/** The pattern ended with a lone `*`: further arguments (flags or operands) may follow. */
	rest: boolean;
}

/**
 * How generously to match. `exact` (allow rules) never lets an unknown word satisfy the pattern;
 * `broad` (ask and deny rules) matches whenever the command could be the pattern: extra flags and
 * operands are tolerated and words only known at run time match anything.
 */
export type MatchBreadth = "exact" | "broad";

export class CommandPatternError extends Error {
	override name = "CommandPatternError";
}

/** Split a pattern into words with shell-like quoting; no expansions are performed. */
export function splitPatternWords(text: string): string[] {
	const words: string[] = [];
	let current = "";
	let inWord = false;
	let quote: string | undefined;
	for (let i = 0; i < text.length; i++) {
		const c = text[i]!;
		if (quote) {
			if (c === quote) quote = undefined;
			else if (c === "\\" && quote === '"' && i + 1 < text.length) current += text[++i];
			else current += c;
		} else if (c === "'" || c === '"') {
			quote = c;
			inWord = true;
		} else if (c === "\\" && i + 1 < text.length) {
			current += text[++i];
			inWord = true;
		} else if (/\s/.test(c)) {
			if (inWord) words.push(current);
			current = "";
			inWord = false;
		} else {
			current += c;
			inWord = true;
		}
	}
	if (quote) throw new CommandPatternError(`unterminated ${quote} quote in command pattern ${JSON.stringify(text)}`);
	if (inWord) words.push(current);
	return words;
}

export function parseCommandPattern(text: string): CommandPattern {
	const words = splitPatternWords(text);
	if (words.length === 0) throw new CommandPatternError("empty command pattern");
	if (words.length === 1 && words[0] === "*") return { any: true, program: "*", flags: [], operands: [], rest: true };
	const rest = words.length > 1 && words[words.length - 1] === "*";
	const [first, ...args] = rest ? words.slice(0, -1) : words;
	const program = basename(first!);
	const normalized = normalizeArgs(
		program,
		args.map((value): ShellWord => ({ value, static: true })),
	);
	return { any: false, program, flags: normalized.flags, operands: normalized.operands.map((o) => o.value), rest };
}

function hasRuntimeWords(command: SimpleCommand): boolean {
	return command.argsFromInput || command.normalized.operands.some((o) => !o.static);
}

function matchExact(pattern: CommandPattern, command: SimpleCommand): boolean {
	const { flags, operands } = command.normalized;
	if (pattern.rest) {
		if (!pattern.flags.every((p) => flags.some((f) => wordGlob(p, f)))) return false;
	} else {
		if (command.argsFromInput || flags.length !== pattern.flags.length) return false;
		if (!pattern.flags.every((p) => flags.some((f) => wordGlob(p, f)))) return false;
		if (!flags.every((f) => pattern.flags.some((p) => wordGlob(p, f)))) return false;
		if (operands.length !== pattern.operands.length) return false;
	}
	return pattern.operands.every((p, i) => {
		const o = operands[i];
		return o?.static === true && wordGlob(p, o.value);
	});
}

function matchBroad(pattern: CommandPattern, command: SimpleCommand): boolean {
	const { flags, operands } = command.normalized;
	const runtime = hasRuntimeWords(command);
	if (!runtime && !pattern.flags.every((p) => flags.some((f) => wordGlob(p, f)))) return false;
	// Pattern operands must appear in order; a run-time word may stand for any number of them.
	let j = 0;
	for (const p of pattern.operands) {
		let found = false;
		while (j < operands.length) {
			const o = operands[j]!;
			if (!o.static) {
				found = true;
				break;
			}
			j++;
			if (wordGlob(p, o.value)) {
				found = true;
				break;
			}
		}
		if (!found && !command.argsFromInput) return false;
	}
	return true;
}

/** Whether a parsed sub-command is an instance of the pattern. Opaque commands are the caller's concern. */
export function matchCommand(pattern: CommandPattern, command: SimpleCommand, breadth: MatchBreadth): boolean {
	if (pattern.any) return true;
	if (!command.programKnown || command.program === "") return false;
	if (!wordGlob(pattern.program, command.program)) return false;
	return breadth === "exact" ? matchExact(pattern, command) : matchBroad(pattern, command);
}
