/** Reads a host rules file: YAML or JSON `{ allow: [...], ask: [...], deny: [...] }`. */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { UsageError } from "./cli-error.js";

const KEYS = ["allow", "ask", "deny"] as const;

export interface RulesFile {
	allow?: string[];
	ask?: string[];
	deny?: string[];
}

export function readRulesFile(path: string): RulesFile {
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch (err) {
		throw new UsageError(`rules file ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
	}
	let data: unknown;
	try {
		data = parse(text, { logLevel: "error" });
	} catch (err) {
		throw new UsageError(`rules file ${path}: not valid YAML (${String((err as Error).message).split("\n")[0]})`);
	}
	if (data === null || data === undefined) return {};
	if (typeof data !== "object" || Array.isArray(data)) throw new UsageError(`rules file ${path}: expected a mapping with allow/ask/deny lists`);
	const rules: { allow?: string[]; ask?: string[]; deny?: string[] } = {};
	for (const [key, value] of Object.entries(data)) {
		if (!(KEYS as readonly string[]).includes(key)) throw new UsageError(`rules file ${path}: unknown key "${key}" (expected allow, ask, deny)`);
		if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
			throw new UsageError(`rules file ${path}: "${key}" must be a list of rule strings such as shell(git push *)`);
		}
		rules[key as (typeof KEYS)[number]] = value as string[];
	}
	return rules;
}
