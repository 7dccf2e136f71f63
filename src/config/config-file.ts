/** Reads one config file: YAML or JSON, checked against the schema, its rules parsed at once. */
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { parse } from "yaml";
import { parseRule, RuleSyntaxError } from "../kernel/admission/rules.js";
import { reasonText } from "../kernel/admission/shell/reason-text.js";
import type { Decision } from "../kernel/admission/types.js";
import { AuthorityFormatError } from "../kernel/authority/authority-errors.js";
import { checkGrantSpec } from "../kernel/authority/capability.js";
import { taskCeiling } from "../kernel/authority/task-ceiling.js";
import { checkProtectedPattern } from "../kernel/protected/protected-paths.js";
import { ConfigError } from "./config-error.js";
import { configProblem } from "./config-schema.js";
import { flowProblem } from "./flow-check.js";
import { hooksProblem } from "./hooks-config.js";
import type { ConfigFileData, ConfigLayer, ConfigLayerName } from "./config-types.js";

export function layerSource(name: ConfigLayerName, path: string): string {
	return name === "rules-file" ? `rules file ${path}` : `${name} config ${path}`;
}

/**
 * The layer in `path`, or undefined when the file does not exist and is not `required` (the
 * default locations may simply have no file). Any other problem is a ConfigError naming the file.
 */
export function readConfigFile(path: string, name: ConfigLayerName, required: boolean): ConfigLayer | undefined {
	const file = resolve(path);
	const fail = (problem: string): never => {
		// A key or value the file holds can carry a line break; the error stays one line.
		throw new ConfigError(`config ${file}: ${reasonText(problem)}`);
	};
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		if (code === "ENOENT" && !required) return undefined;
		return fail(code === "ENOENT" ? "does not exist" : `cannot read it (${code ?? String(err)})`);
	}
	let data: unknown;
	try {
		data = parse(text, { logLevel: "error" });
	} catch (err) {
		fail(`not valid YAML or JSON (${String((err as Error).message).split("\n")[0]})`);
	}
	// An empty file configures nothing.
	if (data === null || data === undefined) data = {};
	const problem = configProblem(data);
	if (problem !== undefined) fail(problem);
	const config = data as ConfigFileData;
	const source = layerSource(name, file);
	checkRules(config, source, fail);
	checkAuthority(config, fail);
	config.protected_paths?.forEach((entry, i) => {
		const problem = checkProtectedPattern(entry.pattern);
		if (problem !== undefined) fail(`protected_paths[${i}].pattern: ${problem}`);
	});
	if (config.flow !== undefined) {
		const flow = flowProblem(config.flow);
		if (flow !== undefined) fail(flow);
	}
	if (config.hooks !== undefined) {
		const hooks = hooksProblem(config.hooks);
		if (hooks !== undefined) fail(hooks);
	}
	config.trusted_projects?.forEach((entry, i) => {
		if (!isAbsolute(entry)) fail(`trusted_projects[${i}] must be an absolute path, got ${JSON.stringify(entry)}`);
	});
	return { name, path: file, source, data: config };
}

/** Grants and the ceiling are checked as a session would check them, so a bad one fails with its file named. */
function checkAuthority(config: ConfigFileData, fail: (problem: string) => never): void {
	try {
		for (const [i, g] of (config.grants ?? []).entries()) checkGrantSpec(g, `grants[${i}]`);
		if (config.ceiling !== undefined) taskCeiling(config.ceiling, "ceiling");
	} catch (err) {
		if (!(err instanceof AuthorityFormatError)) throw err;
		fail(err.message);
	}
	const ids = (config.grants ?? []).flatMap((g) => (g.id === undefined ? [] : [g.id]));
	const twice = ids.find((id, i) => ids.indexOf(id) !== i);
	if (twice !== undefined) fail(`grants: two grants share the id ${twice}`);
}

/** A bad rule fails here, with the file and the field named, not later when a session opens. */
function checkRules(config: ConfigFileData, source: string, fail: (problem: string) => never): void {
	const lists: [field: string, outcome: Decision, rules: string[] | undefined][] = [
		["rules.allow", "allow", config.rules?.allow],
		["rules.ask", "ask", config.rules?.ask],
		["rules.deny", "deny", config.rules?.deny],
		["run_deny", "deny", config.run_deny],
	];
	for (const [field, outcome, rules] of lists) {
		rules?.forEach((text, i) => {
			try {
				parseRule(text, outcome, source);
			} catch (err) {
				if (!(err instanceof RuleSyntaxError)) throw err;
				fail(`${field}[${i}]: ${err.message.replace(` (from ${source})`, "")}`);
			}
		});
	}
}
