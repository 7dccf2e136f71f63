/** What a host chooses when it opens a session. */
import type { ToolOutputListener } from "./live-tool-output.js";
import type { McpServerConfig } from "./mcp/mcp-server-config.js";
import type { ElicitCallback } from "./mcp/mcp-session-tools.js";
import type { Decision, DecisionResult, PermissionMode } from "../kernel/admission/types.js";
import type { ApprovalAnswer, ApprovalRequest } from "../kernel/approval/approval-types.js";
import type { GrantSpec } from "../kernel/authority/capability.js";
import type { TaskCeilingSpec } from "../kernel/authority/task-ceiling.js";
import type { BudgetLimits } from "../kernel/budget/budget-types.js";
import type { FlowSettings, ReleaseCallback } from "../kernel/flow/flow-types.js";
import type { ProtectedPathRule, ProtectedPathSpec } from "../kernel/protected/protected-paths.js";
import type { ModelProfiles } from "../models/model-profile.js";
import type { ModelProvider } from "../models/provider.js";
import type { EditorFiles } from "../providers/editor-fs-provider.js";
import type { EditorTerminals } from "../providers/editor-terminal-provider.js";
import type { ContextOptions } from "./context/context-settings.js";
import type { SessionMemoryOptions } from "./session-memory.js";
import type { InstructionsOption } from "./context/session-context.js";
import type { SkillsOption } from "./skills/session-skill-setup.js";
import type { ToolLimits } from "../tools/tool.js";
import type { HookHandler } from "./hooks/hook-types.js";

/**
 * What the host is asked to confirm: the pending approval request, with its canonical resource,
 * the arguments' and target's digests, and for file writes the diff of what would change.
 */
export interface ConfirmationRequest extends ApprovalRequest {
	session: string;
	callId: string;
	tool: string;
	arguments: unknown;
	decision: DecisionResult;
}

/**
 * Resolves to an ApprovalResponse, or true (allow_once) / false (deny). allow_once admits this call
 * only, as shown; always_allow and always_deny also persist an exact rule for this workspace. A
 * throw or an aborted signal counts as a refusal.
 */
export type ConfirmCallback = (request: ConfirmationRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;

/** A rule with where it came from, so explanations can name it (e.g. `project config /w/.warden/config.yaml`). */
export interface SourcedRule {
	rule: string;
	source: string;
}

/** A rule as text (its source is then `rulesSource`, or `run` for runDeny), or with its own source. */
export type RuleEntry = string | SourcedRule;

export interface RuleSet {
	allow?: readonly RuleEntry[];
	ask?: readonly RuleEntry[];
	deny?: readonly RuleEntry[];
}

/** A configured item that was not used, and why; recorded with the session's start. */
export interface ConfigNote {
	item: string;
	source: string;
	why: string;
}

export interface SessionOptions {
	/** Directory the agent works in; must exist. */
	workspace: string;
	/** A provider, or a spec such as `scripted:plan.yaml` or `ollama:qwen2.5-coder`. */
	model: ModelProvider | string;
	/** The config's named model profiles, which a string `model` may name. */
	modelProfiles?: ModelProfiles;
	/** Default workspace-write. */
	mode?: PermissionMode;
	/** Host/user rules, evaluated in the order allow… are given per outcome list: deny, then ask, then allow. */
	rules?: RuleSet;
	/** Where the host rules came from, for explanations (default `host`). */
	rulesSource?: string;
	/** Per-run deny rules: nothing a host rule allows can override them. */
	runDeny?: readonly RuleEntry[];
	/** Configuration the host resolved but did not use (e.g. an untrusted project's allow rules). */
	configNotes?: readonly ConfigNote[];
	/** No callback means nobody can be asked: every ask is refused. */
	confirm?: ConfirmCallback;
	/**
	 * How long an ask (approval or exact release) waits for an answer from any surface, in ms;
	 * then it expires and the call is refused. Default: until answered or the turn is cancelled.
	 */
	askTimeoutMs?: number;
	/** Model calls per turn (default 50). */
	maxSteps?: number;
	/** How long one model call may take, in ms (default 600 000). */
	modelTimeoutMs?: number;
	limits?: Partial<ToolLimits>;
	/** Replaces the default system prompt. */
	systemPrompt?: string;
	/** Session-wide limits (tool_calls, model_calls, prompt_tokens, completion_tokens, bytes_read, bytes_written, shell_ms). */
	budget?: BudgetLimits;
	/** Limits for each turn of the session; a turn's use also counts against the session's and the host's. */
	turnBudget?: BudgetLimits;
	/**
	 * The session's capability set, checked at every kernel primitive. Default: the mode's preset
	 * (src/kernel/authority/mode-presets.ts). Given, it replaces the preset entirely.
	 */
	grants?: readonly GrantSpec[];
	/** The task ceiling: what this task may ever do, whatever its grants. Default: unrestricted. */
	ceiling?: TaskCeilingSpec;
	/**
	 * `mode` (default): the mode chooses the shell sandbox (none in full-access). `required`: shell
	 * commands always run in the workspace-write sandbox, full-access included, and without a working
	 * bubblewrap every one is asked about.
	 */
	sandbox?: "mode" | "required";
	/**
	 * More protected paths on top of the built-in ones (never fewer): a write there is never
	 * auto-allowed and the kernel refuses it without a clearance. A spec without a source is named
	 * `host`; the CLI passes the user config's and project config's entries with their files.
	 */
	protectedPaths?: readonly (ProtectedPathSpec | ProtectedPathRule)[];
	/** The flow plane: sink rules, more secret files, and whether the model's context is redacted. */
	flow?: FlowSettings;
	/**
	 * Asked when data above a sink's clearance could leave through an exact one-shot release; true
	 * approves that one payload to that one sink, once. No callback: nothing above clearance leaves.
	 */
	release?: ReleaseCallback;
	/**
	 * An editor's buffers (an ACP client's fs): the top session's file tools read and write through
	 * them, still admitted and recorded by the kernel; sub-agents use the disk.
	 */
	files?: EditorFiles;
	/** An editor's terminals (an ACP client's): a sandboxed command of the top session may run in one (src/providers/editor-terminal-provider.ts). */
	terminals?: EditorTerminals;
	/**
	 * MCP servers to start for the session (src/runtime/mcp/mcp-server-config.ts); only tools whose
	 * definition was approved in this workspace are offered (src/runtime/mcp/mcp-approvals.ts).
	 */
	mcpServers?: readonly McpServerConfig[];
	/** Answers an MCP server's request for input (through human.ask); absent, every request is declined. */
	elicit?: ElicitCallback;
	/**
	 * The context window (used when the provider does not know its model's), the share of it the
	 * next request may fill before the oldest turns are summarised (default 0.8), and the tokens
	 * kept free for the answer.
	 */
	context?: ContextOptions;
	/** Where AGENTS.md files are read from, and whether the project is trusted; `false` reads none. Default: read, untrusted. */
	instructions?: InstructionsOption;
	/**
	 * Hook handlers (src/runtime/hooks/hook-types.ts; the CLI resolves them from the user config and
	 * a trusted project's): they run inside the decision pipeline of every call, sub-agents' too.
	 */
	hooks?: readonly HookHandler[];
	/** Answers the model's ask_user questions (through the `human:user` primitive); absent, the tool says nobody is there. */
	askUser?: (question: string, signal: AbortSignal) => Promise<string | undefined>;
	/** Where Agent Skills are discovered, and whether the project's are trusted; `false` offers none. Default: the user's skills dir and the workspace's, untrusted. */
	skills?: SkillsOption;
	/** Memory (src/runtime/session-memory.ts): on by default; `false` offers no memory tools and records no tool outcomes. */
	memory?: SessionMemoryOptions | false;
	/** Hears a running shell command's output, whole lines redacted, as it is written (src/runtime/live-tool-output.ts); never stored. */
	onToolOutput?: ToolOutputListener;
}

export type { Decision };
