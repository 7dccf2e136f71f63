/**
 * The published config schema (schemas/config.v1.json, draft 2020-12) and the one-line messages
 * its violations become: the field as a user would write it (`rules.allow[2]`), never a JSON pointer.
 */
import { readFileSync } from "node:fs";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";

/** src/config and dist/config both sit two levels below the package root. */
export const CONFIG_SCHEMA_PATH = new URL("../../schemas/config.v1.json", import.meta.url);

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
	if (!compiled) {
		const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, "utf8")) as object;
		compiled = new Ajv2020({ strict: true, allErrors: false, verbose: true }).compile(schema);
	}
	return compiled;
}

/** `/rules/allow/2` → `rules.allow[2]`. */
export function fieldName(instancePath: string): string {
	const parts = instancePath
		.split("/")
		.slice(1)
		.map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
	return parts.reduce((field, part) => (/^\d+$/.test(part) ? `${field}[${part}]` : field === "" ? part : `${field}.${part}`), "");
}

const TYPE_WORDS: Record<string, string> = {
	string: "a string",
	integer: "an integer",
	number: "a number",
	array: "a list",
	object: "a mapping",
	boolean: "true or false",
};

function describeValue(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "a list";
	if (typeof value === "object") return "a mapping";
	return `${typeof value} ${JSON.stringify(value)}`;
}

function describeError(err: ErrorObject): string {
	const field = fieldName(err.instancePath);
	const subject = field === "" ? "the file" : field;
	switch (err.keyword) {
		case "additionalProperties": {
			const key = String(err.params.additionalProperty);
			const known = Object.keys((err.parentSchema as { properties?: object } | undefined)?.properties ?? {}).filter((k) => k !== "$schema");
			return `${field === "" ? key : `${field}.${key}`} is not a known key (known: ${known.join(", ")})`;
		}
		case "type": {
			const wanted = String(err.params.type);
			return `${subject} must be ${TYPE_WORDS[wanted] ?? wanted}, got ${describeValue(err.data)}`;
		}
		case "enum":
			return `${subject} must be one of ${(err.params.allowedValues as unknown[]).join(", ")}, got ${describeValue(err.data)}`;
		case "minimum":
			return `${subject} must be at least ${String(err.params.limit)}, got ${describeValue(err.data)}`;
		case "minLength":
			return `${subject} must not be empty`;
		case "pattern":
			if (err.propertyName !== undefined) return `${field === "" ? "" : `${field}: `}name "${err.propertyName}" must be letters, digits, dots, dashes or underscores`;
			return `${subject} ${err.message ?? "is invalid"}`;
		default:
			return `${subject} ${err.message ?? "is invalid"}`;
	}
}

/** Undefined when the data is a valid config; otherwise the first problem, as one line. */
export function configProblem(data: unknown): string | undefined {
	const validate = validator();
	if (validate(data)) return undefined;
	const first = validate.errors?.[0];
	return first ? describeError(first) : "is not a valid config";
}
