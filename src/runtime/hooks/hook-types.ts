/**
 * Hooks as a session is given them (resolved from the config layers by src/config/hooks-config.ts,
 * or by an embedding host), and what one run of a handler came to. The configuration is Claude
 * Code's: events, regular-expression matchers on tool names, command handlers fed the event as JSON.
 */

export const HOOK_EVENTS = [
	"PreToolUse",
	"PostToolUse",
	"PostToolUseFailure",
	"UserPromptSubmit",
	"Stop",
	"SubagentStart",
	"SubagentStop",
	"PreCompact",
	"SessionStart",
	"SessionEnd",
	"Notification",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Claude Code's default: a handler may run for a minute. */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

/** Where a handler was configured: the user's own hooks run as the user; a project's only once the workspace is trusted. */
export type HookOrigin = "user" | "project";

/** One command handler under one matcher of one event. */
export interface HookHandler {
	event: HookEvent;
	/** The matcher as written (`""` or `*` matches everything). */
	matcher: string;
	command: string;
	timeoutMs: number;
	origin: HookOrigin;
	/** e.g. `user config /home/u/.config/warden/config.yaml: hooks.PreToolUse[0].hooks[1]`. */
	source: string;
}

/** What a handler asked for, as far as its event lets it ask for anything. */
export type HookVerdict = "none" | "allow" | "ask" | "deny" | "block" | "failed";

/** One handler's run, parsed: the evidence records it, and its event's caller applies it. */
export interface HookRun {
	handler: HookHandler;
	/** Null when the process did not exit by itself (killed at its timeout, or never started). */
	exitCode: number | null;
	timedOut: boolean;
	durationMs: number;
	verdict: HookVerdict;
	/** Why: the hook's own reason (stderr on exit 2, permissionDecisionReason), or what went wrong. */
	reason?: string;
	/** Text the hook wants in the model's context (additionalContext; plain stdout where the event takes it). */
	additionalContext?: string;
	/** PreToolUse: the whole new input, decided again from the start. */
	updatedInput?: Record<string, unknown>;
	stdout: string;
	stderr: string;
}
