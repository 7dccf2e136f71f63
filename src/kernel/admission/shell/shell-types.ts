/** What the shell parser makes of a command string: a flat list of simple commands, wrappers looked through. */

/** One word after quote removal; `static` is false when its value is only known at run time. */
export interface ShellWord {
	/** The unquoted value when static; the source text (outer quotes removed) when dynamic. */
	value: string;
	static: boolean;
	/**
	 * Dynamic words only: the text with quotes and escapes removed but expansions left as written
	 * (`"rm -rf $HOME/*"` → `rm -rf $HOME/*`) — what a shell handed this word as a script would parse.
	 */
	scriptText?: string;
}

export type RedirectKind = "read" | "write" | "duplicate" | "heredoc";

export interface ShellRedirect {
	/** The operator as written: `>`, `>>`, `<`, `&>`, `2>` is `>` with fd `2`, `-o` for `time -o` … */
	operator: string;
	fd?: string;
	kind: RedirectKind;
	/** The file (or descriptor) the redirect names; empty for heredocs. */
	target: ShellWord;
	/**
	 * Heredocs and here-strings: the text they feed to standard input. Static when the delimiter is
	 * quoted (`<<'EOF'`) or the text holds no expansion; otherwise dynamic, with its expansions kept.
	 */
	body?: ShellWord;
}

/** Flags split, aliased and sorted; operands in their original order. */
export interface NormalizedArgs {
	flags: string[];
	operands: ShellWord[];
}

export interface SimpleCommand {
	/** Basename of the program after looking through wrappers (`rm` for `/bin/rm`); empty for a bare redirect. */
	program: string;
	/** False when the program word is only known at run time (`$(echo rm)`, `$CMD`). */
	programKnown: boolean;
	/** The program word as written (`/bin/rm`, `./x`, `$(echo rm)`). */
	programPath: string;
	/** Arguments after the program, brace-expanded, in order. */
	args: ShellWord[];
	/** `args` values, for convenience. */
	argv: string[];
	normalized: NormalizedArgs;
	/** Canonical text used for display and matching, e.g. `rm -f -r build`. */
	text: string;
	env: { name: string; value: string }[];
	redirects: ShellRedirect[];
	/** Wrappers looked through, outermost first (`env`, `nice`, `sudo`, `bash -c` …). */
	wrappers: string[];
	/** The program words of those wrappers as written (`/usr/bin/env`, `./nice`, `bash`): each must be the system's too. */
	launchers?: string[];
	/** Run through sudo, doas or su. */
	privileged: boolean;
	/** More arguments arrive at run time (xargs, find -exec `{}`). */
	argsFromInput: boolean;
	/** The program cannot be known before the command runs. */
	opaque: boolean;
	opaqueReason?: string;
	/** Source text of the command this came from. */
	source: string;
	/** Position in the pipeline / background context, for structural checks such as fork bombs. */
	inPipeline: boolean;
	background: boolean;
	/** Name of the shell function whose body holds this command, if any. */
	inFunction?: string;
}

export interface ParsedShell {
	source: string;
	commands: SimpleCommand[];
	/** Names of shell functions the script defines. */
	functions: string[];
	/** The text did not parse cleanly; every command is then marked opaque. */
	malformed: boolean;
	/** Why nothing could be read from a malformed text, when it is not plain bad syntax (nesting too deep). */
	malformedReason?: string;
}
