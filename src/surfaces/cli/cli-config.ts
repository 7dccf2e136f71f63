/**
 * The layered configuration as the CLI resolves it, for `warden run` and `warden policy check`
 * alike: flags are checked, the `--rules` file is read, the layers are merged, and every ignored
 * item is reported on stderr as one line.
 */
import { resolveConfig } from "../../config/resolve-config.js";
import type { BudgetLimits, ConfigFlags, ConfigRequest, IgnoredConfigItem, OnAsk, ResolvedConfig } from "../../config/config-types.js";
import type { PermissionMode } from "../../kernel/admission/types.js";
import { PERMISSION_MODES } from "../../kernel/admission/types.js";
import { UsageError } from "./cli-error.js";
import { readRulesFile } from "./rules-file.js";

/** The flags both commands share; commander fills them in. */
export interface ConfigCliFlags {
	workspace: string;
	config?: string;
	/** False for `--no-project-config`. */
	projectConfig: boolean;
	rules?: string;
	mode?: string;
	model?: string;
	onAsk?: string;
	maxSteps?: string;
	allow: string[];
	ask: string[];
	deny: string[];
	budget?: BudgetLimits;
}

export function ignoredLine(note: IgnoredConfigItem): string {
	return `warden: warning: ignored ${note.item} from ${note.source}: ${note.why}\n`;
}

function flagValues(flags: ConfigCliFlags): ConfigFlags {
	const values: ConfigFlags = { allow: flags.allow, ask: flags.ask, deny: flags.deny };
	if (flags.mode !== undefined) {
		if (!(PERMISSION_MODES as readonly string[]).includes(flags.mode)) {
			throw new UsageError(`--mode must be one of ${PERMISSION_MODES.join(", ")}, got "${flags.mode}"`);
		}
		values.mode = flags.mode as PermissionMode;
	}
	if (flags.onAsk !== undefined) {
		if (flags.onAsk !== "deny" && flags.onAsk !== "allow") throw new UsageError(`--on-ask must be deny or allow, got "${flags.onAsk}"`);
		values.onAsk = flags.onAsk as OnAsk;
	}
	if (flags.maxSteps !== undefined) {
		const maxSteps = Number(flags.maxSteps);
		if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new UsageError(`--max-steps must be a positive integer, got "${flags.maxSteps}"`);
		values.maxSteps = maxSteps;
	}
	if (flags.model) values.model = flags.model;
	if (flags.budget) values.budget = flags.budget;
	return values;
}

export async function resolveCliConfig(
	flags: ConfigCliFlags,
	env: NodeJS.ProcessEnv,
	warn: (line: string) => void = (l) => process.stderr.write(l),
): Promise<ResolvedConfig> {
	const values = flagValues(flags);
	const request: ConfigRequest = { workspace: flags.workspace, env, projectConfig: flags.projectConfig, flags: values };
	if (flags.config !== undefined) request.configFile = flags.config;
	if (flags.rules !== undefined) request.rulesFile = { path: flags.rules, rules: readRulesFile(flags.rules) };
	const config = await resolveConfig(request);
	for (const note of config.ignored) warn(ignoredLine(note));
	return config;
}
