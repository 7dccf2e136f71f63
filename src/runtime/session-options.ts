/** What a host chooses when it opens a session. */
import type { Decision, DecisionResult, PermissionMode } from "../kernel/admission/types.js";
import type { BudgetLimits } from "../kernel/budget/budget-types.js";
import type { ModelProvider } from "../models/provider.js";
import type { ToolLimits } from "../tools/tool.js";

/** What the host is asked to confirm. */
export interface ConfirmationRequest {
	session: string;
	callId: string;
	tool: string;
	arguments: unknown;
	decision: DecisionResult;
}

/** Resolves true to approve, false to refuse. A throw or an aborted signal counts as a refusal. */
export type ConfirmCallback = (request: ConfirmationRequest, signal: AbortSignal) => Promise<boolean>;

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
}

export type { Decision };
