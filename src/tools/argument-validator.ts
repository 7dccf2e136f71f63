/** Checks a call's arguments against its tool's JSON Schema (draft 2020-12) before anything is decided. */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import type { ToolDefinition } from "./tool.js";

export type ValidationResult = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

const ajv = new Ajv2020({ allErrors: false, strict: true });
/** Compiled once per definition; a definition's schema does not change after registration. */
const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(tool: ToolDefinition): ValidateFunction {
	let validate = compiled.get(tool);
	if (!validate) {
		validate = ajv.compile(tool.inputSchema);
		compiled.set(tool, validate);
	}
	return validate;
}

function describe(err: ErrorObject): string {
	const at = err.instancePath === "" ? "" : `${err.instancePath} `;
	if (err.keyword === "additionalProperties") return `${at}has unexpected property "${String(err.params.additionalProperty)}"`.trimStart();
	if (err.keyword === "required") return `${at}is missing required property "${String(err.params.missingProperty)}"`.trimStart();
	return `${at}${err.message ?? "is invalid"}`;
}

export function validateArguments(tool: ToolDefinition, args: unknown): ValidationResult {
	if (typeof args !== "object" || args === null || Array.isArray(args)) {
		return { ok: false, error: `${tool.name}: arguments must be a JSON object` };
	}
	const validate = validatorFor(tool);
	if (validate(args)) return { ok: true, value: args as Record<string, unknown> };
	const first = validate.errors?.[0];
	return { ok: false, error: `${tool.name}: ${first ? describe(first) : "arguments are invalid"}` };
}
