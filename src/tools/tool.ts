/** What a model-visible tool is: a definition plus an executor that reaches the world only through kernel primitives. */
import type { RuleSubject } from "../kernel/admission/types.js";
import type { TodoItem } from "../kernel/evidence/event-types.js";
import type { HumanPrimitives } from "../kernel/kernel-human.js";
import type { KernelPrimitives } from "../kernel/primitives.js";
import type { SubagentSpawner } from "./subagent-types.js";

export interface ToolContext {
	kernel: KernelPrimitives;
	callId: string;
	signal: AbortSignal;
	/** Tool limits the host chose. */
	limits: ToolLimits;
	/** Child sessions of this call's session; absent where sub-agents are not offered. */
	subagents?: SubagentSpawner;
	/** Adds JIT tools to this call's session; absent where the host offers no JIT tools. */
	jit?: JitRegistrar;
	/** The person the session works for (`human:user`): ask_user's question goes through it. */
	human?: HumanPrimitives<string, string | undefined>;
	/** Records the model's todo list as the session's `todo.updated` event. */
	recordTodos?(items: TodoItem[]): Promise<void>;
	/** The session's skills, for activate_skill; absent where the session offers none. */
	skills?: SkillActivator;
}

/** Loads one skill of the session's catalogue: its instructions and the list of its files, as the model is to see them. */
export interface SkillActivator {
	activate(name: string): Promise<string>;
}

/** A compiled JIT tool as register_tool hands it to the session. */
export interface JitRegistration {
	name: string;
	description: string;
	inputSchema: Record<string, unknown>;
	/** The script the isolate runs. */
	code: string;
	/** sha256 of the TypeScript source: a different hash is a different tool. */
	sha256: string;
}

/** `unchanged`: the same name with the same source is registered already, nothing was done. */
export type JitRegistrationOutcome = "registered" | "new_version" | "unchanged";

export interface JitRegistrar {
	register(registration: JitRegistration): Promise<JitRegistrationOutcome>;
}

export interface ToolLimits {
	/** Characters of a result given back to the model. */
	maxResultChars: number;
	/** Default and maximum shell timeout. */
	shellTimeoutMs: number;
	shellMaxTimeoutMs: number;
	/** Bytes of shell output captured. */
	shellMaxOutputBytes: number;
	/** Bytes read_file will read. */
	maxReadBytes: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
	maxResultChars: 32_000,
	shellTimeoutMs: 30_000,
	shellMaxTimeoutMs: 600_000,
	shellMaxOutputBytes: 1_000_000,
	maxReadBytes: 2_000_000,
};

export interface ToolResult {
	/** Text returned to the model. */
	output: string;
	/** True when the tool ran but the operation failed (non-zero exit, no match …): reported as tool.failed. */
	isError?: boolean;
	/** True when the tool cut what it was given (tool.completed says `truncated: true`). */
	truncated?: boolean;
}

export interface ToolDefinition<A = Record<string, unknown>> {
	name: string;
	description: string;
	/** JSON Schema (draft 2020-12) of the arguments; validated before any decision. */
	inputSchema: Record<string, unknown>;
	readOnly: boolean;
	requiresConfirmation: boolean;
	/** Which argument permission rules match against, e.g. the path for write_file, the command for shell. */
	ruleSubject(args: A): RuleSubject | undefined;
	execute(args: A, ctx: ToolContext): Promise<ToolResult>;
}

/** A tool's own failure with a one-line message for the model (not an internal error). */
export class ToolError extends Error {
	override name = "ToolError";
}
