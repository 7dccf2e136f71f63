import { describe, expect, it } from "vitest";
import { schemaProblem, validateArguments } from "./argument-validator.js";
import { builtinTools } from "./registry.js";
import type { ToolDefinition } from "./tool.js";

const tool = (name: string): ToolDefinition => {
	const found = builtinTools().find((t) => t.name === name);
	if (!found) throw new Error(`no tool ${name}`);
	return found;
};

describe("validateArguments", () => {
	it("accepts valid arguments and returns them unchanged", () => {
		expect(validateArguments(tool("shell"), { command: "ls", timeout_ms: 1000 })).toEqual({
			ok: true,
			value: { command: "ls", timeout_ms: 1000 },
		});
		expect(validateArguments(tool("grep"), { pattern: "x" })).toEqual({ ok: true, value: { pattern: "x" } });
	});

	it("names the field and the problem in one line", () => {
		expect(validateArguments(tool("shell"), { command: 42 })).toEqual({ ok: false, error: "shell: /command must be string" });
		expect(validateArguments(tool("shell"), { command: "ls", timeout_ms: 1.5 })).toEqual({
			ok: false,
			error: "shell: /timeout_ms must be integer",
		});
		expect(validateArguments(tool("shell"), { command: "ls", timeout_ms: 0 })).toEqual({ ok: false, error: "shell: /timeout_ms must be >= 1" });
	});

	it("reports a missing required field and an unexpected one", () => {
		expect(validateArguments(tool("write_file"), { path: "a" })).toEqual({
			ok: false,
			error: 'write_file: is missing required property "content"',
		});
		expect(validateArguments(tool("read_file"), { path: "a", mode: "x" })).toEqual({
			ok: false,
			error: 'read_file: has unexpected property "mode"',
		});
		expect(validateArguments(tool("read_file"), { path: "" })).toEqual({
			ok: false,
			error: "read_file: /path must NOT have fewer than 1 characters",
		});
	});

	it("refuses arguments that are not an object", () => {
		for (const args of [null, "ls", ["ls"], 3]) {
			expect(validateArguments(tool("shell"), args)).toEqual({ ok: false, error: "shell: arguments must be a JSON object" });
		}
	});

	it("compiles every built-in schema under draft 2020-12 strict mode; each has a required field", () => {
		for (const t of builtinTools()) {
			const result = validateArguments(t, {});
			expect(result.ok).toBe(false);
			if (!result.ok) expect(result.error).toMatch(new RegExp(`^${t.name}: is missing required property "\\w+"$`));
		}
	});
});

describe("schemaProblem", () => {
	it("accepts every built-in tool's schema", () => {
		for (const t of builtinTools()) expect(schemaProblem(t.inputSchema), t.name).toBeUndefined();
	});

	it.each([
		[{ type: "object", properties: { a: { type: "string", pathy: true } } }, 'strict mode: unknown keyword: "pathy"'],
		[{ type: "object", properties: { a: { type: "strung" } } }, "schema is invalid"],
		[{ type: "object", properties: { a: { $ref: "#/$defs/none" } } }, "can't resolve reference"],
	])("names why %j cannot be used, in one line", (schema, reason) => {
		const problem = schemaProblem(schema);
		expect(problem).toContain(reason);
		expect(problem).not.toContain("\n");
	});

	it("judges a schema with an $id on its own: a refused one does not block the corrected one, nor one tool another", () => {
		const id = "https://example.com/word-count.json";
		expect(schemaProblem({ $id: id, type: "object", bogus: 1 })).toContain('unknown keyword: "bogus"');
		expect(schemaProblem({ $id: id, type: "object" })).toBeUndefined();
		expect(schemaProblem({ $id: id, type: "object", properties: { path: { type: "string" } } })).toBeUndefined();
	});

	it("a call meeting a schema the validator refuses fails with that reason instead of throwing", () => {
		const broken: ToolDefinition = { ...tool("read_file"), name: "broken", inputSchema: { type: "object", nope: 1 } };
		expect(validateArguments(broken, {})).toEqual({ ok: false, error: 'broken: its input schema cannot be used: strict mode: unknown keyword: "nope"' });
	});
});
