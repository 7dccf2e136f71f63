/** A safety evaluation task as loaded from `eval/tasks/<category>/<id>.yaml` (see docs/eval-tasks.md). */
import type { EvalMcpServer } from "./task-mcp.js";
import type { EvalTaskHooks } from "./task-hooks.js";
import type { PermissionMode } from "../../kernel/admission/types.js";
import type { GrantSpec } from "../../kernel/authority/capability.js";
import type { TaskCeilingSpec } from "../../kernel/authority/task-ceiling.js";
import type { BudgetLimits } from "../../kernel/budget/budget-types.js";
import type { FlowSettings } from "../../kernel/flow/flow-types.js";
import type { CrashPoint } from "../../store/fault-injection.js";

export const RUNNER_NAMES = ["full", "direct", "confirm", "category"] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];

export type Expectation = "allowed" | "forbidden";

/** The full runner's answer to exact-release requests; `once` approves the first and refuses every later one. */
export const RELEASE_ANSWERS = ["deny", "allow", "once"] as const;
export type ReleaseAnswer = (typeof RELEASE_ANSWERS)[number];

/**
 * What an ACP client answers each `session/request_permission` about a tool call; `cancelled` is
 * the user cancelling the turn while asked (session/cancel, then the request answered cancelled).
 */
export const ACP_ANSWERS = ["allow_once", "allow_always", "reject_once", "reject_always", "cancelled"] as const;
export type AcpAnswer = (typeof ACP_ANSWERS)[number];

/** An ACP task: the full runner drives the turn through `warden acp`'s agent with the SDK's client. */
export interface AcpTaskSpec {
	/** Replaces on_ask: the client's answer to every ask about a tool call. */
	answer: AcpAnswer;
	/** The client sends session/cancel once this call (e.g. `call_1_1_1`) is in progress. */
	cancelAt?: string;
	/** The client offers terminals and runs what it is asked to in them (src/surfaces/eval/acp-client-terminals.ts). */
	terminals?: boolean;
}

/**
 * The one observable effect a planned call would have if it ran. Paths and texts still hold
 * their `{workspace}`-style variables; they are expanded per runner, once the fixture exists.
 */
export type EffectSpec =
	| { kind: "created"; path: string }
	| { kind: "modified"; path: string }
	| { kind: "deleted"; path: string }
	| { kind: "contains"; path: string; text: string }
	| { kind: "sink"; path: string; bodyContains?: string }
	| { kind: "model_saw"; text: string }
	/** A call the task's MCP server logged receiving during the step (its tool, and text its arguments hold). */
	| { kind: "mcp_call"; server: string; tool: string; text?: string }
	| TerminalEffect;

export type EffectKind = EffectSpec["kind"];

/**
 * What reached the person's terminal (the `surfaces` tasks, src/surfaces/eval/terminal-oracle.ts):
 * `screen_shows` the text reached it (raw or drawn), `screen_hides` the text was not visible when
 * the call was put to the person, `terminal_state` the terminal's title, clipboard or screen changed.
 */
export type TerminalEffect =
	| { kind: "screen_shows"; text: string }
	| { kind: "screen_hides"; text: string }
	| { kind: "terminal_state"; state: (typeof TERMINAL_STATES)[number] };

export const TERMINAL_STATES = ["title", "clipboard", "alternate_screen"] as const;
export const TERMINAL_EFFECT_KINDS = ["screen_shows", "screen_hides", "terminal_state"] as const;

export function isTerminalEffect<E extends { kind: string }>(effect: E): effect is E & TerminalEffect {
	return (TERMINAL_EFFECT_KINDS as readonly string[]).includes(effect.kind);
}

/** An effect in the observed directories or at the sink: one the full runner must have audited when it happened. */
export function isWorldEffect(effect: { kind: string }): boolean {
	return effect.kind !== "model_saw" && !isTerminalEffect(effect);
}

/** Where a `surfaces` task's full run draws: the screen (`warden`), `warden --plain`, or `warden run --on-ask prompt`. */
export const TERMINAL_SURFACES = ["screen", "plain", "prompt"] as const;
export interface TerminalTaskSpec {
	surface: (typeof TERMINAL_SURFACES)[number];
}

export interface PlannedCall {
	name: string;
	/** The provider's call id, passed through to the scripted model. */
	id?: string;
	/** An object, or raw JSON text a model would send (it may be malformed on purpose). */
	arguments: Record<string, unknown> | string;
	expect: Expectation;
	effect: EffectSpec;
}

/** One model call of the plan: text, tool calls, or both. */
export interface PlannedStep {
	text?: string;
	calls: PlannedCall[];
}

export interface FixtureSpec {
	/** Workspace-relative path → content. */
	files: Record<string, string>;
	/** Path relative to the task's $HOME → content. */
	homeFiles: Record<string, string>;
	/** Path relative to the outside directory → content. */
	outsideFiles: Record<string, string>;
	/** Workspace-relative link → target (`{…}` variables allowed). */
	symlinks: Record<string, string>;
	/** Workspace-relative link → existing file (`{…}` variables allowed). */
	hardlinks: Record<string, string>;
	/** Variables in the agent's environment: the full runner's Runtime env, exported into each baseline shell command. */
	env?: Record<string, string>;
	/** The workspace as a git repository, and bare repositories under the outside directory (a push's observable destination). */
	git?: GitFixture;
}

export interface GitFixture {
	/** Workspace files committed on branch main before the run; the others stay untracked. */
	commit: string[];
	/** Empty bare repositories created under `{outside}`. */
	bare: string[];
}

export interface TaskRules {
	allow: string[];
	ask: string[];
	deny: string[];
}

export interface TaskChecks {
	/** Strings that must not appear anywhere in the run's evidence. */
	notInEvidence: string[];
	/** Call ids whose effect the full runner must have recorded as `unknown` (an MCP server that went away, a timeout). */
	unknownEffects: string[];
}

export interface EvalTask {
	id: string;
	category: string;
	description: string;
	/** The file it was loaded from. */
	file: string;
	mode: PermissionMode;
	rules: TaskRules;
	runDeny: string[];
	onAsk: "allow" | "deny";
	/**
	 * The full runner's asks go unanswered until they expire, and then this answer arrives from
	 * another surface (through the ask queue): it must be refused and release nothing.
	 */
	lateAnswer?: "allow_once" | "allow_always";
	/** Session-wide limits for the full runner; a turn that runs out ends `budget_exhausted`. Empty: none. */
	budget: BudgetLimits;
	/** The session's capability set for the full runner; undefined: the mode's preset. */
	grants?: GrantSpec[];
	/** The task ceiling for the full runner; undefined: none. */
	ceiling?: TaskCeilingSpec;
	/** The flow plane's settings for the full runner (sink patterns still hold their `{…}` variables); undefined: the defaults. */
	flow?: FlowSettings;
	/** The full runner's answer to exact-release requests (default deny). */
	onRelease: ReleaseAnswer;
	fixture: FixtureSpec;
	plan: PlannedStep[];
	checks: TaskChecks;
	/**
	 * A recovery task: the full runner runs the plan through the real CLI in a child process that
	 * SIGKILLs itself at this barrier, reopens, and judges the effects in the world after recovery
	 * (src/surfaces/eval/recovery-runner.ts). The baselines keep no durable state: not applicable.
	 */
	crashAt?: CrashPoint;
	/**
	 * With crash_at: after the reopens, the crashed session is resumed (`warden run --resume`) with
	 * these steps, as turn 2; their calls are judged in the world after that run.
	 */
	retry?: PlannedStep[];
	/** Drive the full runner's turn through the ACP agent (src/surfaces/eval/acp-driver.ts); the baselines ignore it. */
	acp?: AcpTaskSpec;
	/** MCP servers the task's session starts (src/surfaces/eval/task-mcp.ts); the baselines call them unreviewed. */
	mcpServers?: EvalMcpServer[];
	/** Hooks (src/surfaces/eval/task-hooks.ts): the full runner's session gets them as the config would; the baselines run them naively. */
	hooks?: EvalTaskHooks;
	/**
	 * A second session's plan: once the first session ended, the full runner opens a new one on the
	 * same state dir (fresh context, same store: its memory) and runs these steps as its turn; the
	 * baselines run them after the plan with the same plain tools. Its calls are reported as
	 * `later:call_1_<step>_<n>`.
	 */
	laterSession?: PlannedStep[];
	/**
	 * A `surfaces` task: the full runner drives the real CLI in a pseudo-terminal on this surface
	 * (src/surfaces/eval/terminal-runner.ts); the baselines print what they get to a plain terminal.
	 */
	terminal?: TerminalTaskSpec;
	/**
	 * The user trusts the project: the full runner's sessions read its AGENTS.md as trusted
	 * instructions (as `trusted_projects` in the config would), so only a file's own recorded label
	 * can make them untrusted. Default: not trusted. The baselines read no instructions.
	 */
	trustProject?: boolean;
}
