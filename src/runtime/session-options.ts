/** What a host chooses when it opens a session. */
import type { Decision, DecisionResult, PermissionMode } from "../kernel/admission/types.js";
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

export interface RuleSet {
	allow?: readonly string[];
	ask?: readonly string[];
	deny?: readonly string[];
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
	runDeny?: readonly string[];
	/** No callback means nobody can be asked: every ask is refused. */
	confirm?: ConfirmCallback;
	/** Model calls per turn (default 50). */
	maxSteps?: number;
	/** How long one model call may take, in ms (default 600 000). */
	modelTimeoutMs?: number;
	limits?: Partial<ToolLimits>;
	/** Replaces the default system prompt. */
	systemPrompt?: string;
}

export type { Decision };
