/**
 * The registry in force for one call: the host's, plus the paths the repositories' own configs
 * derive right now (git-config-derived.ts) for the workspace's repository and each nested one.
 * The nested ones are found by the sandbox's short walk; the list is kept per workspace so that a
 * decision (many per turn) reuses the last call's walk instead of walking again.
 */
import { nestedRepositories } from "../../providers/sandbox/protected-layout.js";
import { repositoryConfigRules } from "./git-config-derived.js";
import { defaultProtectedPaths, type ProtectedPaths } from "./protected-paths.js";

const repositories = new Map<string, readonly string[]>();
const composed = new WeakMap<ProtectedPaths, { rules: unknown; registry: ProtectedPaths }>();
let defaults: ProtectedPaths | undefined;

export interface DerivedRegistryOptions {
	/** Walk for nested repositories again (once per call), rather than reuse the last walk. */
	rescan?: boolean;
}

export function withRepositoryConfig(registry: ProtectedPaths | undefined, workspace: string, home: string, opts: DerivedRegistryOptions = {}): ProtectedPaths {
	defaults ??= defaultProtectedPaths();
	const base = registry ?? defaults;
	let repos = repositories.get(workspace);
	if (repos === undefined || opts.rescan) {
		repos = ["", ...nestedRepositories(workspace)];
		if (repositories.size > 64) repositories.clear();
		repositories.set(workspace, repos);
	}
	const rules = repositoryConfigRules({ workspace, home, repositories: repos });
	if (rules.length === 0) return base;
	const last = composed.get(base);
	if (last && last.rules === rules) return last.registry;
	const next = base.with(rules);
	composed.set(base, { rules, registry: next });
	return next;
}
