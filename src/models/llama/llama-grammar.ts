/**
 * The reply protocol of an embedded model: one JSON object, either `{"answer": text}` or
 * `{"tool": name, "arguments": {...}}`, constrained by a grammar built from the tools' own
 * argument schemas, so even a small model can only emit a call to a tool that exists, with
 * arguments of the right shape. What the grammar cannot express is relaxed, and the runtime still
 * validates the arguments against the full schema; undeclared properties are left out unless the
 * schema asks for them, which keeps a small model on the declared path.
 */
import type { RawToolCall, ToolSchema } from "../provider.js";

/** A JSON Schema in the subset node-llama-cpp compiles to a grammar. */
export type GrammarSchema = Record<string, unknown>;

const MAX_REF_DEPTH = 8;
/**
 * Bounds above these are dropped (relaxed, not enforced by the grammar): llama.cpp expands a
 * repetition into that many rules and rejects a grammar past about 2000 (`{1,200000}` fails).
 */
const MAX_GRAMMAR_LENGTH = 64;
const MAX_GRAMMAR_ITEMS = 16;
const PRIMITIVE = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

/** Any JSON value: what a keyword the grammar cannot express relaxes to. */
export const ANY_JSON: GrammarSchema = {
	oneOf: [{ type: ["string", "number", "boolean", "null"] }, { type: "array" }, { type: "object", additionalProperties: true }],
};

/** The schema of one reply, given the tools on offer. */
export function replySchema(tools: ToolSchema[]): GrammarSchema {
	const answer = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
	if (tools.length === 0) return answer;
	const calls = tools.map((tool) => ({
		type: "object",
		properties: { tool: { const: tool.name }, arguments: toGrammarSchema(tool.parameters) },
		required: ["tool", "arguments"],
	}));
	return { oneOf: [answer, ...calls] };
}

/** Converts a draft 2020-12 schema into the grammar subset. */
export function toGrammarSchema(schema: unknown, root: unknown = schema, depth = 0): GrammarSchema {
	if (!isRecord(schema)) return ANY_JSON;
	if ("const" in schema) return PRIMITIVE(schema.const) ? { const: schema.const } : ANY_JSON;
	if (Array.isArray(schema.enum)) return schema.enum.every(PRIMITIVE) && schema.enum.length > 0 ? { enum: schema.enum } : ANY_JSON;
	if (typeof schema.$ref === "string") {
		const target = depth < MAX_REF_DEPTH ? localRef(root, schema.$ref) : undefined;
		return target === undefined ? ANY_JSON : toGrammarSchema(target, root, depth + 1);
	}
	const alternatives = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
	if (alternatives && alternatives.length > 0) return { oneOf: alternatives.map((s) => toGrammarSchema(s, root, depth)) };
	const type = schema.type ?? (isRecord(schema.properties) ? "object" : undefined);
	if (Array.isArray(type)) {
		const named = type.filter((t): t is string => typeof t === "string");
		if (named.length === 0) return ANY_JSON;
		return named.length === 1 ? toGrammarSchema({ ...schema, type: named[0] }, root, depth) : { oneOf: named.map((t) => toGrammarSchema({ ...schema, type: t }, root, depth)) };
	}
	switch (type) {
		case "string":
			return stringSchema(schema);
		case "number":
		case "integer":
		case "boolean":
		case "null":
			return { type };
		case "array":
			return arraySchema(schema, root, depth);
		case "object":
			return objectSchema(schema, root, depth);
		default:
			return ANY_JSON;
	}
}

function stringSchema(schema: Record<string, unknown>): GrammarSchema {
	const out: GrammarSchema = { type: "string" };
	if (["date-time", "time", "date"].includes(schema.format as string)) return { type: "string", format: schema.format };
	if (isCount(schema.minLength, MAX_GRAMMAR_LENGTH)) out.minLength = schema.minLength;
	if (isCount(schema.maxLength, MAX_GRAMMAR_LENGTH)) out.maxLength = schema.maxLength;
	return out;
}

function arraySchema(schema: Record<string, unknown>, root: unknown, depth: number): GrammarSchema {
	const out: GrammarSchema = { type: "array" };
	if (schema.items !== undefined && typeof schema.items !== "boolean") out.items = toGrammarSchema(schema.items, root, depth);
	if (Array.isArray(schema.prefixItems)) out.prefixItems = schema.prefixItems.map((s) => toGrammarSchema(s, root, depth));
	if (isCount(schema.minItems, MAX_GRAMMAR_ITEMS)) out.minItems = schema.minItems;
	if (isCount(schema.maxItems, MAX_GRAMMAR_ITEMS)) out.maxItems = schema.maxItems;
	return out;
}

function objectSchema(schema: Record<string, unknown>, root: unknown, depth: number): GrammarSchema {
	const properties = isRecord(schema.properties) ? schema.properties : {};
	const names = Object.keys(properties);
	const out: GrammarSchema = { type: "object", properties: Object.fromEntries(names.map((name) => [name, toGrammarSchema(properties[name], root, depth)])) };
	const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string" && names.includes(r)) : [];
	if (required.length > 0) out.required = required;
	// Declared properties only, unless the schema names no properties or asks for more: a small model stays on the path.
	if (isRecord(schema.additionalProperties)) out.additionalProperties = toGrammarSchema(schema.additionalProperties, root, depth);
	else out.additionalProperties = schema.additionalProperties === true || names.length === 0;
	return out;
}

function localRef(root: unknown, ref: string): unknown {
	const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
	if (!match || !isRecord(root)) return undefined;
	const defs = root[match[1]!];
	return isRecord(defs) ? defs[decodeURIComponent(match[2]!).replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
}

/** A reply as the provider returns it: the answer's text, or the one call. */
export type Reply = { text: string; toolCalls: RawToolCall[] };

/** Reads a grammar-constrained reply; a reply that is not one (cut short, say) is an error naming it. */
export function parseReply(raw: string, tools: ToolSchema[]): Reply {
	let value: unknown;
	try {
		value = JSON.parse(raw);
	} catch {
		throw new Error(`the model's reply is not complete JSON (${raw.length} characters)`);
	}
	if (isRecord(value) && typeof value.answer === "string") return { text: value.answer, toolCalls: [] };
	if (isRecord(value) && typeof value.tool === "string" && tools.some((t) => t.name === value.tool)) {
		return { text: "", toolCalls: [{ name: value.tool, arguments: value.arguments ?? {} }] };
	}
	throw new Error("the model's reply is neither an answer nor a call to an offered tool");
}

/** How an earlier reply is shown back to the model: the same protocol it answers in. */
export function renderReply(text: string, calls: { name: string; arguments: string }[]): string {
	if (calls.length === 0) return JSON.stringify({ answer: text });
	return calls.map((call) => `{"tool": ${JSON.stringify(call.name)}, "arguments": ${argumentsText(call.arguments)}}`).join("\n");
}

function argumentsText(args: string): string {
	try {
		return JSON.stringify(JSON.parse(args));
	} catch {
		return JSON.stringify(args);
	}
}

/** The instructions that tell the model the protocol and the tools it may call. */
export function protocolPrompt(tools: ToolSchema[]): string {
	const lines = ['Reply with exactly one JSON object: {"answer": "<your reply>"} to answer the user'];
	if (tools.length === 0) return `${lines[0]}.`;
	lines[0] += ', or {"tool": "<tool name>", "arguments": {...}} to call one tool; its result comes back in the next message.';
	lines.push("Tools:");
	for (const tool of tools) {
		const { $schema: _, ...parameters } = tool.parameters;
		lines.push(`- ${tool.name}: ${tool.description}`, `  arguments: ${JSON.stringify(parameters)}`);
	}
	return lines.join("\n");
}

function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isCount(v: unknown, max: number): v is number {
	return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= max;
}
