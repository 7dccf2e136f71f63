/**
 * Merges the configuration layers, lowest precedence first: user config (or `--config`), project
 * config, `--rules` file, command-line flags. Scalars: the highest layer that sets one wins. Rule
 * lists: concatenated, each rule keeping its source. Budgets: the lowest limit wins, from any
 * layer, flags included — a budget can be tightened on the way up, never loosened. An untrusted
 * project's loosening items are dropped first (untrusted-project.ts).
 */
import { resolveMemory } from "./memory-config.js";
import { parseRule } from "../kernel/admission/rules.js";
import type { Decision, PermissionMode } from "../kernel/admission/types.js";
import { BUDGET_COUNTERS } from "../kernel/budget/budget-types.js";
import { realDirectory } from "../providers/directory-probe.js";
import type { SourcedRule } from "../runtime/session-options.js";
import type { ContextOptions } from "../runtime/context/context-settings.js";
import { mergeCeilings } from "./ceiling-merge.js";
import { ConfigError } from "./config-error.js";
import { readConfigFile } from "./config-file.js";
import { projectConfigPath, userConfigLocation } from "./config-locations.js";
import type {
	BudgetCounter,
	BudgetLimits,
	ConfigFileData,
	ConfigLayer,
	ConfigRequest,
	FlowConfigData,
	IgnoredConfigItem,
	OnAsk,
	ResolvedConfig,
	Sourced,
} from "./config-types.js";
import { flowProblem } from "./flow-check.js";
import { mergeFlow } from "./flow-merge.js";
import { resolveHooks } from "./hooks-config.js";
import { mcpLayers, readMcpJson, resolveMcpServers } from "./mcp-servers.js";
import { isTrustedProject } from "./project-trust.js";
import { filterProjectLayer } from "./untrusted-project.js";

export const DEFAULT_MODE: PermissionMode = "workspace-write";
export const DEFAULT_ON_ASK: OnAsk = "deny";
export const DEFAULT_MAX_STEPS = 50;

/** One value's candidates, lowest precedence first; the last one set wins. */
function highest<T>(candidates: [value: T | undefined, source: string][], fallback: T): Sourced<T>;
function highest<T>(candidates: [value: T | undefined, source: string][]): Sourced<T> | undefined;
function highest<T>(candidates: [value: T | undefined, source: string][], fallback?: T): Sourced<T> | undefined {
	for (let i = candidates.length - 1; i >= 0; i--) {
		const [value, source] = candidates[i]!;
		if (value !== undefined) return { value, source };
	}
	return fallback === undefined ? undefined : { value: fallback, source: "default" };
}

/** Parsed now so that a bad rule fails before anything opens, with its source named. */
function sourced(rules: readonly string[] | undefined, outcome: Decision, source: string): SourcedRule[] {
	return (rules ?? []).map((rule) => {
		parseRule(rule, outcome, source);
		return { rule, source };
	});
}

export async function resolveConfig(request: ConfigRequest): Promise<ResolvedConfig> {
	const workspace = await realDirectory(request.workspace, "workspace");
	const flags = request.flags ?? {};
	const location = request.configFile !== undefined ? { path: request.configFile, required: true } : userConfigLocation(request.env);
	const user = readConfigFile(location.path, "user", location.required);
	const trustedProject = isTrustedProject(workspace, user?.data.trusted_projects ?? []);

	const ignored: IgnoredConfigItem[] = [];
	let project: ConfigLayer | undefined;
	if (request.projectConfig !== false) {
		const loaded = readConfigFile(projectConfigPath(workspace), "project", false);
		if (loaded) {
			const baseline = { mode: user?.data.mode ?? DEFAULT_MODE, maxSteps: user?.data.max_steps ?? DEFAULT_MAX_STEPS, sinks: user?.data.flow?.sinks ?? [] };
			const filtered = filterProjectLayer(loaded, trustedProject, baseline, workspace);
			project = { ...loaded, data: filtered.data };
			ignored.push(...filtered.ignored);
		}
	}
	const files = [user, project].filter((layer): layer is ConfigLayer => layer !== undefined);
	const fileValue = <K extends keyof ConfigFileData>(key: K): [ConfigFileData[K], string][] => files.map((l) => [l.data[key], l.source]);
	const rulesFile = request.rulesFile;
	const rulesFileSource = rulesFile ? `rules file ${rulesFile.path}` : "";
	const envModel = request.env.WARDEN_MODEL || undefined;

	const resolved: ResolvedConfig = {
		workspace,
		mode: highest([...fileValue("mode"), [flags.mode, "--mode"]], DEFAULT_MODE),
		onAsk: highest([...fileValue("on_ask"), [flags.onAsk, "--on-ask"]], DEFAULT_ON_ASK),
		maxSteps: highest([...fileValue("max_steps"), [flags.maxSteps, "--max-steps"]], DEFAULT_MAX_STEPS),
		context: contextFromLayers(files.map((l) => l.data.context)),
		rules: {
			allow: [
				...files.flatMap((l) => sourced(l.data.rules?.allow, "allow", l.source)),
				...sourced(rulesFile?.rules.allow, "allow", rulesFileSource),
				...sourced(flags.allow, "allow", "--allow"),
			],
			ask: [
				...files.flatMap((l) => sourced(l.data.rules?.ask, "ask", l.source)),
				...sourced(rulesFile?.rules.ask, "ask", rulesFileSource),
				...sourced(flags.ask, "ask", "--ask"),
			],
			deny: [...files.flatMap((l) => sourced(l.data.rules?.deny, "deny", l.source)), ...sourced(rulesFile?.rules.deny, "deny", rulesFileSource)],
		},
		runDeny: [...files.flatMap((l) => sourced(l.data.run_deny, "deny", l.source)), ...sourced(flags.deny, "deny", "--deny")],
		...lowestBudget([...files.map((l): [BudgetLimits | undefined, string] => [l.data.budget, l.source]), [flags.budget, "--budget"]]),
		flow: mergeFlow([
			...files.map((l) => ({ flow: l.data.flow, source: l.source })),
			{ flow: checkedFlow(rulesFile?.flow, rulesFileSource), source: rulesFileSource },
			{ flow: checkedFlow(flags.flow, FLAGS_FLOW_SOURCE), source: FLAGS_FLOW_SOURCE },
		]),
		// Every layer's entries count, an untrusted project's too: an entry can only make a write ask.
		protectedPaths: files.flatMap((l) => (l.data.protected_paths ?? []).map((p) => ({ pattern: p.pattern, reason: p.reason, source: l.source }))),
		layers: [
			...files.map((l) => ({ name: l.name, source: l.source, path: l.path! })),
			...(rulesFile ? [{ name: "rules-file" as const, source: rulesFileSource, path: rulesFile.path }] : []),
		],
		trustedProject,
		ignored,
		modelProfiles: Object.fromEntries(files.flatMap((l) => Object.entries(l.data.models ?? {}).map(([name, profile]) => [name, { profile, source: l.source }]))),
	};
	// A project's servers (its config's and .mcp.json's) start only in a trusted workspace.
	const mcpJson = request.projectConfig !== false ? readMcpJson(workspace) : undefined;
	resolved.mcpServers = resolveMcpServers(mcpLayers(files, mcpJson), trustedProject, workspace, request.env, ignored);
	// A project's hooks run only in a trusted workspace; the user's always do.
	const hooks = resolveHooks(files, trustedProject, workspace, ignored);
	if (hooks.length > 0) resolved.hooks = hooks;
	const memory = resolveMemory(user, project, request.env, ignored);
	if (memory) resolved.memory = memory;
	const model = highest([...fileValue("model"), [envModel, "$WARDEN_MODEL"], [flags.model, "--model"]]);
	if (model) resolved.model = model;
	// An untrusted project's grants were dropped above; a trusted one's join the user's.
	const granting = files.filter((l) => l.data.grants !== undefined);
	if (granting.length > 0) resolved.grants = { value: granting.flatMap((l) => l.data.grants!), sources: granting.map((l) => l.source) };
	for (const layer of files) {
		if (layer.data.ceiling === undefined) continue;
		const merged = mergeCeilings(resolved.ceiling?.value, layer.data.ceiling);
		resolved.ceiling = { value: merged.ceiling, sources: [...(resolved.ceiling?.sources ?? []), layer.source] };
		for (const note of merged.ignored) ignored.push({ item: note.item, source: layer.source, why: note.why });
	}
	return resolved;
}

const FLAGS_FLOW_SOURCE = "command line";

/** Config files are checked as they are read; flow settings that arrive otherwise are checked here. */
/** Each context setting from the last layer that sets it: the project knows its model best, and none of them is authority. */
function contextFromLayers(layers: readonly (ConfigFileData["context"] | undefined)[]): ContextOptions {
	const merged: ContextOptions = {};
	for (const layer of layers) {
		if (layer?.window !== undefined) merged.window = layer.window;
		if (layer?.compact_at !== undefined) merged.compactAt = layer.compact_at;
		if (layer?.reserve !== undefined) merged.reserve = layer.reserve;
	}
	return merged;
}

function checkedFlow(flow: FlowConfigData | undefined, source: string): FlowConfigData | undefined {
	if (flow === undefined) return undefined;
	const problem = flowProblem(flow);
	if (problem !== undefined) throw new ConfigError(`${source}: ${problem}`);
	return flow;
}

function lowestBudget(layers: [BudgetLimits | undefined, string][]): Pick<ResolvedConfig, "budget" | "budgetSources"> {
	const budget: BudgetLimits = {};
	const budgetSources: Partial<Record<BudgetCounter, string>> = {};
	for (const [limits, source] of layers) {
		for (const counter of BUDGET_COUNTERS) {
			const limit = limits?.[counter];
			if (limit === undefined) continue;
			const current = budget[counter];
			if (current === undefined || limit < current) {
				budget[counter] = limit;
				budgetSources[counter] = source;
			}
		}
	}
	return { budget, budgetSources };
}
