/**
 * A SKILL.md's frontmatter, checked as the Agent Skills format says: `name` (1 to 64 of a-z, 0-9
 * and `-`, the same as its folder's name) and `description` (at most 1,024 characters) are required;
 * `license`, `compatibility`, `metadata` and `allowed-tools` are optional; nothing else is allowed.
 * The first problem found is the answer, naming its field.
 */
import { parseDocument } from "yaml";
import { parseRule, RuleSyntaxError } from "../../kernel/admission/rules.js";
import type { Skill } from "./skill-types.js";
import { splitAllowedTools, wardenRuleText } from "./skill-tool-names.js";

export const SKILL_NAME = /^[a-z0-9-]{1,64}$/;
export const DESCRIPTION_MAX_CHARS = 1024;

/** The fields a SKILL.md may have, with what each must hold. */
const FIELDS = ["name", "description", "license", "compatibility", "metadata", "allowed-tools"] as const;

export type SkillFields = Pick<Skill, "name" | "description" | "license" | "compatibility" | "metadata" | "allowedTools">;

export type ParsedSkill = { ok: true; fields: SkillFields; body: string } | { ok: false; field: string; message: string };

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

function bad(field: string, message: string): ParsedSkill {
	return { ok: false, field, message };
}

function describe(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "a list";
	return typeof value === "object" ? "a mapping" : `${typeof value} ${JSON.stringify(value)}`.slice(0, 80);
}

/** `folder`: the name of the directory holding the file, which `name` must equal. */
export function parseSkillFile(text: string, folder: string): ParsedSkill {
	const fenced = FENCE.exec(text.replace(/^\uFEFF/, ""));
	if (!fenced) return bad("frontmatter", "SKILL.md must start with YAML frontmatter between two --- lines");
	const doc = parseDocument(fenced[1]!, { uniqueKeys: true });
	if (doc.errors.length > 0) return bad("frontmatter", `not valid YAML: ${doc.errors[0]!.message.split("\n")[0]}`);
	const data: unknown = doc.toJS();
	if (data === null || typeof data !== "object" || Array.isArray(data)) return bad("frontmatter", `must be a mapping, got ${describe(data)}`);
	const record = data as Record<string, unknown>;
	const unknown = Object.keys(record).find((k) => !(FIELDS as readonly string[]).includes(k));
	if (unknown !== undefined) return bad(unknown, `is not a SKILL.md field (allowed: ${FIELDS.join(", ")})`);

	const name = record.name;
	if (typeof name !== "string") return bad("name", `is required and must be a string, got ${describe(name)}`);
	if (!SKILL_NAME.test(name)) return bad("name", `must be 1 to 64 characters of a-z, 0-9 and -, got ${JSON.stringify(name).slice(0, 80)}`);
	if (name !== folder) return bad("name", `must equal its folder's name ${JSON.stringify(folder)}, got ${JSON.stringify(name)}`);

	const description = record.description;
	if (typeof description !== "string" || description.trim() === "") return bad("description", `is required and must be a non-empty string, got ${describe(description)}`);
	if ([...description].length > DESCRIPTION_MAX_CHARS) return bad("description", `must be at most ${DESCRIPTION_MAX_CHARS} characters, got ${[...description].length}`);

	const fields: SkillFields = { name, description: description.trim() };
	for (const key of ["license", "compatibility"] as const) {
		const value = record[key];
		if (value === undefined) continue;
		if (typeof value !== "string") return bad(key, `must be a string, got ${describe(value)}`);
		fields[key] = value;
	}
	if (record.metadata !== undefined) {
		const metadata = record.metadata;
		if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return bad("metadata", `must be a mapping of strings, got ${describe(metadata)}`);
		const entries = Object.entries(metadata as Record<string, unknown>);
		const wrong = entries.find(([, v]) => typeof v !== "string");
		if (wrong) return bad("metadata", `${wrong[0]} must be a string, got ${describe(wrong[1])}`);
		fields.metadata = Object.fromEntries(entries) as Record<string, string>;
	}
	if (record["allowed-tools"] !== undefined) {
		const allowed = allowedTools(record["allowed-tools"], name);
		if ("error" in allowed) return bad("allowed-tools", allowed.error);
		fields.allowedTools = allowed;
	}
	return { ok: true, fields, body: text.replace(/^\uFEFF/, "").slice(fenced[0].length).trim() };
}

/** Each entry as a Warden permission rule; a rule that does not parse leaves the skill out rather than unnarrowed. */
function allowedTools(value: unknown, name: string): NonNullable<SkillFields["allowedTools"]> | { error: string } {
	let entries: string[] | undefined;
	if (typeof value === "string") entries = splitAllowedTools(value);
	else if (Array.isArray(value) && value.every((v) => typeof v === "string")) entries = value.flatMap((v: string) => splitAllowedTools(v) ?? [v]);
	else return { error: `must be a space-separated string or a list of strings, got ${describe(value)}` };
	if (entries === undefined) return { error: "has an unbalanced parenthesis" };
	if (entries.length === 0) return { error: "is empty: leave it out to keep the session's tools, or name at least one" };
	const rules = [];
	for (const entry of entries) {
		try {
			rules.push(parseRule(wardenRuleText(entry), "allow", `skill ${name} allowed-tools`));
		} catch (err) {
			if (err instanceof RuleSyntaxError) return { error: `entry ${JSON.stringify(entry)} is not a tool or tool(pattern): ${err.message.split(": ").slice(1).join(": ")}` };
			throw err;
		}
	}
	return { entries, rules };
}
