/**
 * Which environment variables a read-only command may set. Many variables make a reader run a
 * program or load code (PAGER, GIT_PAGER, MANPAGER, LESSOPEN, GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND,
 * LD_PRELOAD, BASH_ENV, PROMPT_COMMAND, PATH, RIPGREP_CONFIG_PATH, GIT_CONFIG_*), and the list grows
 * with every program; so the known-harmless ones are listed instead and any other name is refused.
 */

/** Names a reader may be given in its environment prefix (`LC_ALL=C sort f`). */
const HARMLESS = new Set([
	"LANG", "LANGUAGE", "TZ", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM",
	"GREP_COLOR", "GREP_COLORS", "POSIXLY_CORRECT", "TIME_STYLE", "LS_COLORS", "QUOTING_STYLE", "BLOCK_SIZE",
	"DF_BLOCK_SIZE", "DU_BLOCK_SIZE", "GIT_PAGER_IN_USE",
]);
/** Locale categories: `LC_ALL`, `LC_COLLATE` … */
const LOCALE = /^LC_[A-Z]+$/;
/**
 * A plain shell assignment (`f=notes.md; cat "$f"`) only reaches a program when the name is already
 * exported; bash gives meaning to upper-case names only, so a name with a lower-case letter is a
 * script's own variable. The names zsh ties to its search paths are the exception.
 */
const SHELL_LOCAL = /[a-z]/;
const TIED = new Set(["path", "cdpath", "fpath", "manpath", "module_path", "histchars", "auto_resume"]);

/** Why a command's environment prefix could make a reader run something, or undefined. */
export function unsafeEnvPrefix(env: readonly { name: string }[]): string | undefined {
	const bad = env.find((e) => !HARMLESS.has(e.name) && !LOCALE.test(e.name));
	return bad ? `sets ${bad.name}, which can change what the program runs` : undefined;
}

/** Why a bare assignment (no program) could change what later commands run, or undefined. */
export function unsafeAssignment(env: readonly { name: string }[]): string | undefined {
	const bad = env.find((e) => !HARMLESS.has(e.name) && !LOCALE.test(e.name) && (!SHELL_LOCAL.test(e.name) || TIED.has(e.name)));
	return bad ? `assigns ${bad.name}, which can change what later commands run` : undefined;
}
