/**
 * A project config comes from the repository, which may be hostile. Unless the user trusts the
 * workspace, a project may only tighten policy: what would loosen it is dropped and reported.
 */
import type { PermissionMode } from "../kernel/admission/types.js";
import type { SinkRuleSpec } from "../kernel/flow/flow-types.js";
import type { ConfigFileData, ConfigLayer, IgnoredConfigItem } from "./config-types.js";
import { tightenUntrustedFlow } from "./flow-tightening.js";
import { isMorePermissive } from "./mode-order.js";

/** What the project is compared with: the user layer's values, or the defaults. */
export interface UserBaseline {
	mode: PermissionMode;
	maxSteps: number;
	/** The user's sink rules, which the project's are matched before. */
	sinks: readonly SinkRuleSpec[];
}

export interface ProjectFilterResult {
	data: ConfigFileData;
	ignored: IgnoredConfigItem[];
}

export function filterProjectLayer(layer: ConfigLayer, trusted: boolean, user: UserBaseline, workspace: string): ProjectFilterResult {
	const data: ConfigFileData = { ...layer.data };
	const ignored: IgnoredConfigItem[] = [];
	const drop = (item: string, why: string) => ignored.push({ item, source: layer.source, why });
	const untrusted = `the project ${workspace} is not in trusted_projects of the user config`;

	if (data.trusted_projects !== undefined) {
		drop("trusted_projects", "only the user config can say which projects are trusted");
		delete data.trusted_projects;
	}
	if (trusted) return { data, ignored };

	if (data.models !== undefined) {
		// A profile picks an endpoint and the variable whose key is sent there: a hostile one could send the user's key anywhere.
		for (const name of Object.keys(data.models)) drop(`models.${name}`, `model profiles from a project choose where keys and context go and need trust: ${untrusted}`);
		delete data.models;
	}
	for (const name of Object.keys(data.mcpServers ?? {})) drop(`mcpServers.${name}`, `a project's MCP servers start only in a trusted workspace: ${untrusted}`);
	delete data.mcpServers;

	if (data.grants !== undefined) {
		for (const [i, g] of data.grants.entries()) drop(`grants[${i}] ${g.resource}`, `grants from a project add authority and need trust (a project may narrow with a ceiling): ${untrusted}`);
		delete data.grants;
	}

	const allow = data.rules?.allow ?? [];
	if (allow.length > 0) {
		for (const [i, rule] of allow.entries()) drop(`rules.allow[${i}] ${rule}`, `allow rules from a project need trust: ${untrusted}`);
		data.rules = { ...data.rules };
		delete data.rules.allow;
	}
	if (data.on_ask === "allow") {
		drop("on_ask: allow", `approving every ask needs trust: ${untrusted}`);
		delete data.on_ask;
	}
	if (data.mode !== undefined && isMorePermissive(data.mode, user.mode)) {
		drop(`mode: ${data.mode}`, `a mode more permissive than the user's ${user.mode} needs trust: ${untrusted}`);
		delete data.mode;
	}
	if (data.max_steps !== undefined && data.max_steps > user.maxSteps) {
		drop(`max_steps: ${data.max_steps}`, `more steps than the user's ${user.maxSteps} needs trust: ${untrusted}`);
		delete data.max_steps;
	}
	if (data.flow !== undefined) {
		const tightened = tightenUntrustedFlow(data.flow, user.sinks);
		for (const note of tightened.dropped) drop(note.item, `${note.why} and needs trust: ${untrusted}`);
		if (tightened.flow) data.flow = tightened.flow;
		else delete data.flow;
	}
	return { data, ignored };
}
