/** Checks a call's arguments against its tool's JSON Schema (draft 2020-12) before anything is decided. */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import type { ToolDefinition } from "./tool.js";

export type ValidationResult = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

const OPTIONS = { allErrors: false, strict: true } as const;
const shared = new Ajv2020(OPTIONS);

/**
 * The validator instance a schema is compiled in. Ajv keeps every `$id` it has seen, even from a
 * schema that failed to compile, and refuses to see it again: a schema naming ids gets an instance
 * of its own (same options), so one tool's ids can neither block nor be referenced by another's.
 */
function validatorFor(schema: Record<string, unknown>): Ajv2020 {
	return JSON.stringify(schema).includes('"$id"') ? new Ajv2020(OPTIONS) : shared;
}
/**
 * Compiled once per schema object: a definition's schema does not change after registration, and a
 * JIT tool's schema is compiled when it is registered, so its calls reuse that compilation.
 */
const compiled = new WeakMap<object, ValidateFunction>();

/** The schema compiled, or why the validator cannot use it (an unknown keyword, an invalid schema), in one line. */
function compile(schema: Record<string, unknown>): ValidateFunction | string {
	const cached = compiled.get(schema);
	if (cached) return cached;
	try {
		const validate = validatorFor(schema).compile(schema);
		compiled.set(schema, validate);
		return validate;
	} catch (err) {
		const message = err instanceof Error ? err.message : String(err);
		return (message.split("\n").find((l) => l.trim() !== "") ?? "the schema does not compile").trim();
	}
}

/**
 * Why `schema` cannot validate a tool's arguments, or undefined when it can: compiled by the same
 * strict draft 2020-12 validator that checks every call, so a tool it accepts never fails at its call.
 */
export function schemaProblem(schema: Record<string, unknown>): string | undefined {
	const result = compile(schema);
	return typeof result === "string" ? result : undefined;
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
	const validate = compile(tool.inputSchema);
	// A schema the validator refuses fails the call that met it, not the turn.
	if (typeof validate === "string") return { ok: false, error: `${tool.name}: its input schema cannot be used: ${validate}` };
	if (validate(args)) return { ok: true, value: args as Record<string, unknown> };
	const first = validate.errors?.[0];
	return { ok: false, error: `${tool.name}: ${first ? describe(first) : "arguments are invalid"}` };
}
