import { describe, expect, it } from "vitest";
import type { ToolSchema } from "../provider.js";
import { ANY_JSON, parseReply, protocolPrompt, renderReply, replySchema, toGrammarSchema } from "./llama-grammar.js";

describe("toGrammarSchema", () => {
	// One row per keyword: kept where the grammar can enforce it, relaxed where it cannot.
	const rows: { name: string; schema: unknown; grammar: unknown }[] = [
		{ name: "a short string keeps its bounds", schema: { type: "string", minLength: 1, maxLength: 8 }, grammar: { type: "string", minLength: 1, maxLength: 8 } },
		{ name: "a bound llama.cpp would reject is dropped", schema: { type: "string", minLength: 1, maxLength: 200000 }, grammar: { type: "string", minLength: 1 } },
		{ name: "a pattern is relaxed to any string", schema: { type: "string", pattern: "^a+$" }, grammar: { type: "string" } },
		{ name: "a date format is kept", schema: { type: "string", format: "date" }, grammar: { type: "string", format: "date" } },
		{ name: "integer", schema: { type: "integer", minimum: 0 }, grammar: { type: "integer" } },
		{ name: "enum of primitives", schema: { enum: ["GET", "POST"] }, grammar: { enum: ["GET", "POST"] } },
		{ name: "enum with an object relaxes", schema: { enum: [{ a: 1 }] }, grammar: ANY_JSON },
		{ name: "const", schema: { const: "x" }, grammar: { const: "x" } },
		{ name: "anyOf becomes oneOf", schema: { anyOf: [{ type: "string" }, { type: "null" }] }, grammar: { oneOf: [{ type: "string" }, { type: "null" }] } },
		{ name: "a type list becomes alternatives", schema: { type: ["string", "null"] }, grammar: { oneOf: [{ type: "string" }, { type: "null" }] } },
		{
			name: "an object keeps its declared properties only",
			schema: { type: "object", properties: { path: { type: "string" }, n: { type: "integer" } }, required: ["path", "ghost"] },
			grammar: { type: "object", properties: { path: { type: "string" }, n: { type: "integer" } }, required: ["path"], additionalProperties: false },
		},
		{ name: "an open map stays open", schema: { type: "object", additionalProperties: { type: "string" } }, grammar: { type: "object", properties: {}, additionalProperties: { type: "string" } } },
		{ name: "an object without properties takes any", schema: { type: "object" }, grammar: { type: "object", properties: {}, additionalProperties: true } },
		{ name: "array items and small bounds", schema: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 500 }, grammar: { type: "array", items: { type: "string" }, minItems: 1 } },
		{ name: "no type at all relaxes to any JSON", schema: { description: "anything" }, grammar: ANY_JSON },
		{ name: "a boolean schema relaxes to any JSON", schema: true, grammar: ANY_JSON },
	];
	for (const row of rows) {
		it(row.name, () => {
			expect(toGrammarSchema(row.schema)).toEqual(row.grammar);
		});
	}

	it("follows a local $ref and stops at a cycle", () => {
		const schema = { type: "object", properties: { node: { $ref: "#/$defs/node" } }, $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } } };
		const out = JSON.stringify(toGrammarSchema(schema));
		expect(out).toContain('"next"');
		expect(out).not.toContain("$ref");
		expect(toGrammarSchema({ $ref: "https://example.com/s.json" })).toEqual(ANY_JSON);
	});
});

const tools: ToolSchema[] = [
	{ name: "read_file", description: "Read a file", parameters: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
];

describe("the reply protocol", () => {
	it("offers an answer or a call to each tool, with that tool's own arguments", () => {
		expect(replySchema([])).toEqual({ type: "object", properties: { answer: { type: "string" } }, required: ["answer"] });
		const schema = replySchema(tools) as { oneOf: { properties: Record<string, unknown> }[] };
		expect(schema.oneOf).toHaveLength(2);
		expect(schema.oneOf[1]?.properties).toEqual({ tool: { const: "read_file" }, arguments: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false } });
	});

	it("reads an answer, a call, and refuses what is neither", () => {
		expect(parseReply('{"answer": "done"}', tools)).toEqual({ text: "done", toolCalls: [] });
		expect(parseReply('{\n    "tool": "read_file", "arguments": {"path": "a"}\n}', tools)).toEqual({ text: "", toolCalls: [{ name: "read_file", arguments: { path: "a" } }] });
		expect(() => parseReply('{"answer": "cut', tools)).toThrow("the model's reply is not complete JSON (15 characters)");
		expect(() => parseReply('{"tool": "shell", "arguments": {}}', tools)).toThrow("neither an answer nor a call to an offered tool");
	});

	it("shows earlier replies back in the protocol, so they parse as what they were", () => {
		expect(parseReply(renderReply('say "hi"\n', []), tools)).toEqual({ text: 'say "hi"\n', toolCalls: [] });
		const call = renderReply("", [{ name: "read_file", arguments: '{"path":"a.txt"}' }]);
		expect(parseReply(call, tools).toolCalls).toEqual([{ name: "read_file", arguments: { path: "a.txt" } }]);
		expect(renderReply("", [{ name: "read_file", arguments: "not json" }])).toBe('{"tool": "read_file", "arguments": "not json"}');
	});

	it("tells the model each tool's name, description and arguments, without the $schema noise", () => {
		const prompt = protocolPrompt(tools);
		expect(prompt).toContain("- read_file: Read a file");
		expect(prompt).toContain('arguments: {"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}');
		expect(prompt).not.toContain("$schema");
		expect(protocolPrompt([])).not.toContain("Tools:");
	});
});
