/**
 * The files a shell sub-command names, and whether they lie outside the workspace — as written or,
 * when the host lets the engine see the filesystem, as their real targets.
 */
import type { ParsedShell, ShellWord, SimpleCommand } from "./shell/shell-types.js";
import { absolutePath, canonicalPath } from "./workspace-path.js";

export interface PathScope {
	workspace: string;
	home: string;
	/** The real path of an existing file or directory (symlinks followed), or undefined. */
	resolvePath?: (absolutePath: string) => string | undefined;
}

/** Programs whose operands are text, not files they read. */
const TEXT_OPERANDS = new Set(["echo", "printf", "basename", "dirname", "seq", "printenv", "which", "type", "command", "test", "[", "id", "groups"]);
/** Programs whose first operand is a pattern, filter or script unless an option gave it. */
const PATTERN_FIRST = new Set(["grep", "egrep", "fgrep", "rg", "jq", "sed", "awk", "gawk", "mawk", "nawk"]);
const PATTERN_OPTION = /^(?:-e|-f|--regexp|--file|--from-file|--expression|--source)(?:[ =]|$)/;
/** Option values that are patterns or text, never a file (`grep -e /api/`). */
const TEXT_OPTION = /^(?:-e|--regexp|--expression|--source|-m|--message|-t|--field-separator|-k|--key)(?:[ =]|$)/;
/** Names that are not files on disk. */
const NOT_FILES = new Set(["-", "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"]);
const PROCESS_SUBSTITUTION = /^[<>]\(/;

/**
 * Directories a command may run in: the workspace, and every directory an earlier `cd` or `pushd`
 * in the same script moved to (the flat list does not say which branch ran, so all count).
 */
export function possibleCwds(command: SimpleCommand, parsed: ParsedShell, scope: PathScope): string[] {
	const cwds = [scope.workspace];
	let current = scope.workspace;
	for (const earlier of parsed.commands) {
		if (earlier === command) break;
		if (earlier.program !== "cd" && earlier.program !== "pushd") continue;
		const target = earlier.normalized.operands[0];
		if (target && !target.static) continue;
		current = absolutePath(target?.value ?? scope.home, current, scope.home);
		cwds.push(current);
	}
	return cwds;
}

/** The value of a normalized flag (`-C dir`, `--git-dir=x`), unless it holds text rather than a path. */
function flagValue(flag: string): string | undefined {
	if (TEXT_OPTION.test(flag)) return undefined;
	const cut = /^(--?[A-Za-z0-9][^ =]*)[ =]/.exec(flag);
	return cut ? flag.slice(cut[0].length) : undefined;
}

/** Words of a read-only command that may name a file it reads: operands, option values, `<` redirects. */
export function pathWords(command: SimpleCommand): ShellWord[] {
	const words: ShellWord[] = [];
	const { flags, operands } = command.normalized;
	if (!TEXT_OPERANDS.has(command.program)) {
		const skipFirst = PATTERN_FIRST.has(command.program) && !flags.some((f) => PATTERN_OPTION.test(f));
		words.push(...(skipFirst ? operands.slice(1) : operands));
		for (const flag of flags) {
			const value = flagValue(flag);
			if (value) words.push({ value, static: true });
		}
	}
	for (const r of command.redirects) if (r.kind === "read") words.push(r.target);
	// Unsplit programs (`find`) keep their predicates among the operands.
	return words.filter((w) => !(w.static && w.value.startsWith("-") && w.value !== "-"));
}

/**
 * The first file the command names that is, or may be, outside the workspace: a path outside as
 * written or as its real target, or a word only known at run time. Undefined when every named
 * file is inside.
 */
export function outsideWorkspace(command: SimpleCommand, parsed: ParsedShell, scope: PathScope): string | undefined {
	const cwds = possibleCwds(command, parsed, scope);
	for (const word of pathWords(command)) {
		if (NOT_FILES.has(word.value)) continue;
		if (!word.static) {
			// A process substitution is a pipe; the commands inside it are decided on their own.
			if (PROCESS_SUBSTITUTION.test(word.value)) continue;
			return `${word.value} is only known at run time`;
		}
		for (const cwd of cwds) {
			const lexical = canonicalPath(word.value, cwd, scope.home);
			// Resolved against the workspace itself, the lexical answer already says whether it is inside.
			const inside = cwd === scope.workspace ? lexical.inside : canonicalPath(lexical.absolute, scope.workspace, scope.home).inside;
			if (!inside) return lexical.absolute;
			const real = scope.resolvePath?.(lexical.absolute);
			if (real !== undefined && !canonicalPath(real, scope.workspace, scope.home).inside) return `${lexical.absolute} is really ${real}`;
		}
	}
	return undefined;
}
