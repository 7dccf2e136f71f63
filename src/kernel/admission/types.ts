/** Types of the tool-level permission decision (the Agentao paper's Algorithm 2). */
import type { ProtectedPaths } from "../protected/protected-paths.js";
import type { ParsedShell } from "./shell/shell-types.js";

export type PermissionMode = "read-only" | "workspace-write" | "full-access" | "plan";
export const PERMISSION_MODES: readonly PermissionMode[] = ["read-only", "workspace-write", "full-access", "plan"];

export type Decision = "allow" | "ask" | "deny";

/** Which step of Algorithm 2 produced a decision. */
export type DecisionLayer =
	| "malformed"
	| "unknown-tool"
	| "hardline"
	| "read-only-mode"
	| "run-deny"
	| "host-rule"
	| "mode-rule"
	| "tool-default"
	/** A write to a protected path, or a change to git's executable config: no mode allows it. */
	| "protected-path"
	/** A PreToolUse hook denied the call or made it ask (it can never make a call more allowed). */
	| "hook"
	/** An MCP definition no human approved as it is: the in-chat review asks before it is offered. */
	| "mcp-pin";

/**
 * What a rule's argument pattern is matched against. A tool definition says which of its
 * arguments is the subject; the engine canonicalizes it (workspace-relative path, parsed command).
 */
export type RuleSubject =
	| { kind: "path"; value: string }
	| { kind: "command"; value: string }
	| { kind: "pattern"; value: string };

/** A user-written rule such as `shell(git push *)` or `write_file(src/**)` with its outcome. */
export interface PermissionRule {
	/** Tool name, or `*` for any tool. */
	tool: string;
	/** Argument pattern inside the parentheses; undefined means "any arguments". */
	pattern?: string;
	outcome: Decision;
	/** Where the rule came from (e.g. `--deny`, `config:/path/warden.yaml`, `mode:workspace-write`). */
	source: string;
	/** The rule as the user wrote it, e.g. `shell(git push *)`. */
	text: string;
}

/** The facts about the proposed tool that the engine needs; undefined tool = unknown tool. */
export interface ToolFacts {
	name: string;
	readOnly: boolean;
	requiresConfirmation: boolean;
	subject?: RuleSubject;
}

export interface PolicyContext {
	mode: PermissionMode;
	/** Absolute, real path of the workspace. */
	workspace: string;
	/** The user's home directory, for hardline checks on ~ and $HOME. */
	home: string;
	/** Per-run deny rules: checked before host rules, so a host allow cannot shadow them. */
	runDenyRules: readonly PermissionRule[];
	/** Host/user rules, first match wins. */
	hostRules: readonly PermissionRule[];
	/**
	 * The real path of an existing file or directory (symlinks followed), or undefined. When given,
	 * hardline path checks and the workspace boundary for shell reads also look at what a path really
	 * names; without it the engine decides on the text alone.
	 */
	resolvePath?: (absolutePath: string) => string | undefined;
	/**
	 * The session's parse of a command text (shell-parses.ts), so the decision reads the same frozen
	 * parse as capability admission, the flow plane and the primitive; without it the engine parses.
	 */
	parseShell?: (command: string) => ParsedShell;
	/**
	 * Where the host's PATH finds a bare program name: the absolute path bash would run, or undefined
	 * when it is not found or a relative or workspace PATH entry comes first. When given, a read-only
	 * command is trusted only if its program (and every wrapper) is the one found there or lies in a
	 * system program directory; without it the engine decides on the name alone.
	 */
	resolveProgram?: (name: string) => string | undefined;
	/**
	 * Whether shell commands can run in the bubblewrap sandbox here (probed once per process). With
	 * one, workspace-write allows a plain command that stays in the workspace and off the network;
	 * without one, every shell call that would be allowed is asked instead. Absent: the host did not
	 * say, and the decision is the one made before sandboxes (commands that are not read-only ask).
	 */
	sandbox?: PolicySandbox;
	/**
	 * The host's protected-paths registry; without one its defaults apply. A shell command that
	 * visibly writes one of them is never auto-allowed.
	 */
	protectedPaths?: ProtectedPaths;
}

export interface PolicySandbox {
	available: boolean;
	/** Why there is none. */
	reason?: string;
	/** The confinement that works here (WARDEN_SANDBOX_PROVIDER forces one): bubblewrap, else Landlock. */
	provider?: "bwrap" | "landlock";
	/** Warden's state and config dirs: kept read-only inside the sandbox when they lie in the workspace. */
	protect?: string[];
	/** The host requires the sandbox even where the mode would run commands unconfined (full-access). */
	required?: boolean;
}

/** How one sub-command of a shell call was decided. */
export interface SubcommandDecision {
	/** The normalized command, e.g. `rm -f -r /tmp/x` after looking through wrappers. */
	command: string;
	decision: Decision;
	layer: DecisionLayer;
	reason: string;
	rule?: string;
	/** True when the program could not be known before running (eval, `$(...)` as program, pipe into a shell). */
	opaque?: boolean;
	/** The protected path (or git config key) this sub-command writes. */
	protected?: ProtectedTarget;
}

/** What makes a call a protected write, and the exact paths an approval of it clears. */
export interface ProtectedTarget {
	/** The protected path as matched (workspace-relative), or the git config key a command sets. */
	path: string;
	/** The registry pattern, or the git config key row, that matched. */
	pattern: string;
	/** Why it is protected: shown by the approval prompt. */
	reason: string;
	/** Where the rule came from: `default`, `user config <file>`, `host`, `project config <file>`. */
	source: string;
	/** Workspace-relative paths (as written and as real target) an approval or an exact host rule clears. */
	clears: string[];
}

export interface DecisionResult {
	decision: Decision;
	layer: DecisionLayer;
	/** One line a human can read, e.g. `run deny rule shell(rm *) matched "rm -r -f build"`. */
	reason: string;
	/** The text of the rule that decided, if a rule did. */
	rule?: string;
	/** For shell calls: one entry per sub-command, in source order. */
	subcommands?: SubcommandDecision[];
	/** The call writes a protected path (for shell: the deciding sub-command's git config key). */
	protected?: ProtectedTarget;
}
