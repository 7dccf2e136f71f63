/**
 * An MCP server's request for input (elicitation) asked as plain questions, for a surface that
 * asks a person by a line of text (the terminal, `--plain`, `run --on-ask prompt`). First the
 * server's message and the fields it wants, answered yes to go on (anything else declines); then
 * one question per field, its type and allowed values shown. An empty answer keeps a field's
 * default, or leaves out an optional one; an answer that is not of the field's type is asked again,
 * and after MAX_TRIES the whole request is declined — nothing half-filled reaches the server. What the
 * person types goes to the server only: it is not a tool result, and the record names the fields.
 */
import type { McpElicitation, McpElicitationAnswer } from "../../providers/mcp/mcp-types.js";
import type { ElicitCallback } from "./mcp-session-tools.js";

/** Asks a person one question; undefined when nobody answered (the ask was withdrawn). */
export type AskLine = (question: string, signal: AbortSignal) => Promise<string | undefined>;

/** One field of a requested schema, as a question can ask for it. */
export interface ElicitField {
	name: string;
	type: "string" | "number" | "integer" | "boolean" | "string[]";
	required: boolean;
	/** The allowed values (an enum, or a oneOf / anyOf of consts), for strings and lists of strings. */
	choices?: string[];
	default?: unknown;
	/** Title and description as the server wrote them. */
	about: string;
}

function choicesOf(spec: Record<string, unknown>): string[] | undefined {
	if (Array.isArray(spec.enum)) return spec.enum.map(String);
	const options = Array.isArray(spec.oneOf) ? spec.oneOf : Array.isArray(spec.anyOf) ? spec.anyOf : undefined;
	if (options) return options.flatMap((o) => (typeof o === "object" && o !== null && "const" in o ? [String((o as { const: unknown }).const)] : []));
	return undefined;
}

/** The fields of a requested schema (flat, as MCP elicitation allows); a property of another shape is asked as text. */
export function elicitFields(schema: Record<string, unknown>): ElicitField[] {
	const props = typeof schema.properties === "object" && schema.properties !== null ? (schema.properties as Record<string, Record<string, unknown>>) : {};
	const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
	return Object.entries(props).map(([name, spec]) => {
		const items = typeof spec.items === "object" && spec.items !== null ? (spec.items as Record<string, unknown>) : undefined;
		const type: ElicitField["type"] = spec.type === "number" || spec.type === "integer" || spec.type === "boolean" ? spec.type : spec.type === "array" ? "string[]" : "string";
		const choices = type === "string[]" && items ? choicesOf(items) : choicesOf(spec);
		const about = [spec.title, spec.description].filter((x): x is string => typeof x === "string" && x !== "").join(": ");
		return { name, type, required: required.has(name), ...(choices ? { choices } : {}), ...(spec.default !== undefined ? { default: spec.default } : {}), about };
	});
}

/** The value a typed answer gives a field, `undefined` for "left out", or an error naming what was wrong. */
export function fieldValue(field: ElicitField, typed: string): { value: unknown } | { error: string } {
	const text = typed.trim();
	if (text === "") {
		if (field.default !== undefined) return { value: field.default };
		return field.required ? { error: `${field.name} is required` } : { value: undefined };
	}
	const check = (v: string) => field.choices === undefined || field.choices.includes(v);
	switch (field.type) {
		case "boolean":
			if (/^(y|yes|true)$/i.test(text)) return { value: true };
			if (/^(n|no|false)$/i.test(text)) return { value: false };
			return { error: `${field.name} takes yes or no` };
		case "number":
		case "integer": {
			const n = Number(text);
			if (!Number.isFinite(n) || (field.type === "integer" && !Number.isInteger(n))) return { error: `${field.name} takes ${field.type === "integer" ? "a whole number" : "a number"}` };
			return { value: n };
		}
		case "string[]": {
			const values = text.split(",").map((v) => v.trim()).filter((v) => v !== "");
			const bad = values.find((v) => !check(v));
			return bad === undefined ? { value: values } : { error: `${field.name} takes values from ${field.choices!.join(", ")}` };
		}
		default:
			return check(text) ? { value: text } : { error: `${field.name} takes one of ${field.choices!.join(", ")}` };
	}
}

function fieldQuestion(field: ElicitField): string {
	const type = field.choices ? `${field.type === "string[]" ? "some of" : "one of"} ${field.choices.join(" | ")}${field.type === "string[]" ? ", separated by commas" : ""}` : field.type === "boolean" ? "yes or no" : field.type;
	const keeps = field.default !== undefined ? `; empty keeps ${JSON.stringify(field.default)}` : field.required ? "; required" : "; empty leaves it out";
	return `${field.name} (${type}${keeps})${field.about ? ` — ${field.about}` : ""}`;
}

/** Answers to one field that are not of its type before the request is declined. */
const MAX_TRIES = 3;

/** The host's elicitation callback, asking through `ask` one line at a time. */
export function elicitByQuestions(ask: AskLine): ElicitCallback {
	return async (request: McpElicitation, signal: AbortSignal): Promise<McpElicitationAnswer> => {
		const fields = elicitFields(request.requestedSchema);
		// One line: a surface shows a question's line breaks as escapes, not as lines.
		const wants = fields.length ? ` — it asks for: ${fields.map((f) => `${f.name}${f.required ? " (required)" : ""}`).join(", ")}.` : "";
		const go = await ask(`MCP server ${request.server} asks for input: ${request.message}${wants} Answer it? (yes, or anything else to decline)`, signal);
		if (go === undefined) return { action: "cancel" };
		if (!/^\s*(y|yes)\s*$/i.test(go)) return { action: "decline" };
		const content: Record<string, unknown> = {};
		for (const field of fields) {
			let got: { value: unknown } | { error: string } = { error: "" };
			for (let tries = 0; tries < MAX_TRIES && (tries === 0 || "error" in got); tries++) {
				const typed = await ask(`${"error" in got && got.error ? `${got.error}. ` : ""}${fieldQuestion(field)}`, signal);
				if (typed === undefined) return { action: "cancel" };
				got = fieldValue(field, typed);
			}
			if ("error" in got) return { action: "decline" };
			if (got.value !== undefined) content[field.name] = got.value;
		}
		return { action: "accept", content };
	};
}
