/**
 * Whether the program a command names is the system's own. A reader is trusted for what the
 * system's `ls` or `cat` does; `./ls`, `/tmp/x/cat`, a workspace `bin/grep`, a name that a PATH
 * entry inside the workspace (or a relative one) would find first, or a name the script itself
 * redefines as a function are other programs, whatever they are called. The host answers where a
 * bare name is found (PolicyContext's `resolveProgram`); the decision stays here.
 */
import { posix } from "node:path";
import type { ParsedShell, SimpleCommand } from "./shell/shell-types.js";
import type { PolicyContext } from "./types.js";

export interface IdentityScope {
	workspace: string;
	/** Where the host's PATH finds a bare name, outside relative and workspace entries; undefined: not found. */
	resolveProgram?: (name: string) => string | undefined;
	resolvePath?: (absolutePath: string) => string | undefined;
}

/** Directories that hold the system's programs: only root writes there. */
export const SYSTEM_BIN_DIRS: readonly string[] = [
	"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/libexec", "/usr/lib/git-core",
	"/opt/homebrew/bin", "/opt/homebrew/sbin", "/run/current-system/sw/bin", "/nix/var/nix/profiles/default/bin",
];

/** bash runs these itself, whatever PATH holds (unless the script defines a function of the name). */
const BUILTINS = new Set([
	"echo", "printf", "pwd", "true", "false", "test", "[", "[[", "((", "type", "command", "builtin", ":", "eval", "exec", "time",
	"coproc", "cd", "source", ".", "let", "local", "export", "declare", "readonly", "typeset", "read", "mapfile", "hash", "alias",
	"unalias", "set", "shopt", "enable", "getopts", "kill", "wait", "trap", "umask", "ulimit", "unset", "shift", "return", "exit",
]);

const inside = (path: string, dir: string): boolean => path === dir || path.startsWith(`${dir}/`);

/** Launchers after which a builtin name is still bash's builtin; other wrappers (env, nice, sudo, xargs) exec it from PATH. */
const BUILTIN_LAUNCHERS = new Set(["bash", "sh", "rbash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "posh", "eval", "command", "builtin", "time", "coproc"]);

/** Why the program word as written may not be the system's program, or undefined when it is. */
function wordNotSystem(word: string, parsed: ParsedShell, env: SimpleCommand["env"], scope: IdentityScope, builtinHere: boolean): string | undefined {
	if (word === "") return undefined;
	if (word.includes("/")) {
		if (!word.startsWith("/")) return `${word} is a program in the workspace, not the system's`;
		const path = posix.normalize(word);
		if (!SYSTEM_BIN_DIRS.includes(posix.dirname(path))) return `${word} is not in a system program directory`;
		const real = scope.resolvePath?.(path);
		if (inside(path, scope.workspace) || (real !== undefined && inside(real, scope.workspace))) return `${word} is a program in the workspace`;
		return undefined;
	}
	if (parsed.functions.includes(word)) return `${word} is a shell function the command defines, not the program`;
	if (builtinHere && BUILTINS.has(word)) return undefined;
	if (env.some((e) => e.name === "PATH")) return `${word} is looked up on a PATH the command sets`;
	if (!scope.resolveProgram) return undefined;
	const found = scope.resolveProgram(word);
	if (found === undefined) return `${word} is not a program found on the host's PATH outside the workspace`;
	const real = scope.resolvePath?.(found);
	if (inside(found, scope.workspace) || (real !== undefined && inside(real, scope.workspace))) return `${word} is found on PATH inside the workspace (${found})`;
	return undefined;
}

/** Why the command's program, or a wrapper it runs through, may not be the system's own; undefined when all are. */
export function untrustedProgram(c: SimpleCommand, parsed: ParsedShell, scope: IdentityScope): string | undefined {
	// The launchers, then the program: each word is judged by the one before it.
	const launchers = c.launchers ?? [];
	let before: string | undefined;
	for (let i = 0; i <= launchers.length; i++) {
		const word = i < launchers.length ? launchers[i]! : c.programKnown ? c.programPath : "";
		const builtinHere = before === undefined || BUILTIN_LAUNCHERS.has(posix.basename(before));
		const why = wordNotSystem(word, parsed, c.env, scope, builtinHere);
		if (why) return why;
		before = word;
	}
	return undefined;
}

/** The identity scope of a policy: its workspace and the host's resolvers, where it has them. */
export function identityScope(ctx: Pick<PolicyContext, "workspace" | "resolveProgram" | "resolvePath">): IdentityScope {
	const scope: IdentityScope = { workspace: ctx.workspace };
	if (ctx.resolveProgram) scope.resolveProgram = ctx.resolveProgram;
	if (ctx.resolvePath) scope.resolvePath = ctx.resolvePath;
	return scope;
}
