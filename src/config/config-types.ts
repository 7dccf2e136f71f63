/** What a Warden config file holds, and the configuration that results from merging its layers. */
import type { SessionMemoryOptions } from "../runtime/session-memory.js";
import type { PermissionMode } from "../kernel/admission/types.js";
import type { GrantSpec } from "../kernel/authority/capability.js";
import type { TaskCeilingSpec } from "../kernel/authority/task-ceiling.js";
import type { BudgetCounter, BudgetLimits } from "../kernel/budget/budget-types.js";
import type { FlowSettings, SinkRule, SinkRuleSpec } from "../kernel/flow/flow-types.js";
import type { ProtectedPathRule, ProtectedPathSpec } from "../kernel/protected/protected-paths.js";
import type { ModelProfile, ModelProfiles } from "../models/model-profile.js";
import type { McpServerConfig } from "../runtime/mcp/mcp-server-config.js";
import type { ConfigNote, SourcedRule } from "../runtime/session-options.js";
import type { ContextOptions } from "../runtime/context/context-settings.js";
import type { HookHandler } from "../runtime/hooks/hook-types.js";
import type { HooksBlock } from "./hooks-config.js";

export type { BudgetCounter, BudgetLimits };

export type OnAsk = "deny" | "allow";

/** One config file as written, after it passed schemas/config.v1.json. */
export interface ConfigFileData {
	mode?: PermissionMode;
	model?: string;
	/** Named model profiles; an untrusted project's are dropped. */
	models?: Record<string, ModelProfile>;
	rules?: { allow?: string[]; ask?: string[]; deny?: string[] };
	run_deny?: string[];
	on_ask?: OnAsk;
	max_steps?: number;
	/** The model's context window, compaction threshold and answer reserve (src/runtime/context/context-settings.ts). */
	context?: { window?: number; compact_at?: number; reserve?: number };
	budget?: BudgetLimits;
	/** The capability set; replaces the mode's preset. An untrusted project's are ignored. */
	grants?: GrantSpec[];
	/** The task ceiling; a project's is intersected with the user's (ceiling-merge.ts). */
	ceiling?: TaskCeilingSpec;
	/** The flow plane's host settings; merged across layers by flow-merge.ts. */
	flow?: FlowConfigData;
	/** More protected paths; a project's add to the user's (even untrusted: it only tightens), never remove one. */
	protected_paths?: ProtectedPathSpec[];
	trusted_projects?: string[];
	/** MCP servers (src/config/mcp-servers.ts); a project's start only once the workspace is trusted. */
	mcpServers?: Record<string, McpServerEntry>;
	/** Hooks in Claude Code's shape (src/config/hooks-config.ts); a project's run only once the workspace is trusted. */
	hooks?: HooksBlock;
	/** Memory and its embeddings endpoint (src/config/memory-config.ts); the user config's only. */
	memory?: MemoryConfigData;
}

export interface MemoryConfigData {
	enabled?: boolean;
	embeddings?: { base_url: string; model: string; api_key_env?: string };
}

/** One `mcpServers` entry as written (Claude Desktop / Cursor / .mcp.json shape, plus Warden's keys). */
export interface McpServerEntry {
	type?: "stdio" | "http" | "streamable-http" | "sse";
	command?: string;
	args?: string[];
	env?: Record<string, string>;
	cwd?: string;
	url?: string;
	headers?: Record<string, string>;
	bearer_token_env?: string;
	oauth?: boolean | { scope?: string; client_id?: string };
	include_tools?: string[];
	exclude_tools?: string[];
	sandbox?: boolean;
	network?: boolean;
	timeout_ms?: number;
	disabled?: boolean;
}

/** A `flow:` section as written (checked by flow-check.ts). */
export interface FlowConfigData {
	sinks?: SinkRuleSpec[];
	secret_files?: string[];
	redact_model_context?: RedactModelContext;
}

export type RedactModelContext = NonNullable<FlowSettings["redact_model_context"]>;

/** The merged flow settings: exactly FlowSettings' fields, each sink rule naming the layer it came from. */
export interface ResolvedFlow extends FlowSettings {
	/** Highest layer's rules first: they are matched first. */
	sinks: SinkRule[];
	/** The union of every layer's globs, lowest layer's first. */
	secret_files: string[];
}

/** Lowest to highest precedence. */
export type ConfigLayerName = "user" | "project" | "rules-file" | "flags";

/** One loaded layer: its data and the words explanations use to name it. */
export interface ConfigLayer {
	name: ConfigLayerName;
	/** The file, for file layers. */
	path?: string;
	/** How rules and values from this layer are named, e.g. `project config /w/.warden/config.yaml`. */
	source: string;
	data: ConfigFileData;
}

/** Something a layer set that was not used, and why (an untrusted project loosening policy). */
export type IgnoredConfigItem = ConfigNote;

export interface Sourced<T> {
	value: T;
	/** The layer that set it, or `default`. */
	source: string;
}

/** What the command line adds on top of the files. */
export interface ConfigFlags {
	mode?: PermissionMode;
	model?: string;
	onAsk?: OnAsk;
	maxSteps?: number;
	allow?: readonly string[];
	ask?: readonly string[];
	deny?: readonly string[];
	budget?: BudgetLimits;
	/** Flow settings given on the command line (named `command line` in explanations); the highest layer. */
	flow?: FlowConfigData;
}

export interface ConfigRequest {
	/** The workspace as the user named it. */
	workspace: string;
	/** For $WARDEN_CONFIG, $XDG_CONFIG_HOME, $HOME and $WARDEN_MODEL. */
	env: NodeJS.ProcessEnv;
	/** `--config`: read this file instead of the user config. */
	configFile?: string;
	/** False for `--no-project-config`. Default true. */
	projectConfig?: boolean;
	/** `--rules`: host rules from a file the user named, a layer just below the flags. */
	rulesFile?: { path: string; rules: { allow?: readonly string[]; ask?: readonly string[]; deny?: readonly string[] }; flow?: FlowConfigData };
	flags?: ConfigFlags;
}

export interface ResolvedConfig {
	/** Real path of the workspace. */
	workspace: string;
	mode: Sourced<PermissionMode>;
	/** Undefined when no layer, flag or $WARDEN_MODEL names a model. */
	model?: Sourced<string>;
	/** Profiles of the user layer and a trusted project (the project's win on a shared name), each naming its layer. */
	modelProfiles?: ModelProfiles;
	onAsk: Sourced<OnAsk>;
	maxSteps: Sourced<number>;
	/** Host rules of every layer, lowest layer first, each with its source. */
	rules: { allow: SourcedRule[]; ask: SourcedRule[]; deny: SourcedRule[] };
	runDeny: SourcedRule[];
	/** The lowest limit any layer set, per counter. */
	budget: BudgetLimits;
	budgetSources: Partial<Record<BudgetCounter, string>>;
	/** Grants of the user layer, then of a trusted project; undefined when no layer gives any (the mode's preset holds). */
	grants?: { value: GrantSpec[]; sources: string[] };
	/** The user's ceiling narrowed by the project's; undefined when no layer sets one. */
	ceiling?: { value: TaskCeilingSpec; sources: string[] };
	/** The flow plane's settings from every layer (empty lists when none sets any); SessionOptions.flow takes it as is. */
	flow: ResolvedFlow;
	/** Protected paths beyond the built-in ones: the user layer's, then the project's, each naming its file. */
	protectedPaths?: ProtectedPathRule[];
	/** The layers that were read, lowest first. */
	layers: { name: ConfigLayerName; source: string; path?: string }[];
	/** MCP servers of every layer that may start (user, then a trusted project's config and .mcp.json). */
	mcpServers?: McpServerConfig[];
	/** Hook handlers of the user layer, then of a trusted project (src/config/hooks-config.ts). */
	hooks?: HookHandler[];
	/** Whether the project config (if any) came from a workspace the user trusts. */
	trustedProject: boolean;
	/** The context settings, each from the last layer that sets it; empty when none does. */
	context?: ContextOptions;
	/** Memory as the user config sets it: `false` when turned off; absent when it says nothing (memory on, no embeddings). */
	memory?: Sourced<SessionMemoryOptions | false>;
	ignored: IgnoredConfigItem[];
}
