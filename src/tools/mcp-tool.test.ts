import { describe, expect, it } from "vitest";
import { validateArguments } from "./argument-validator.js";
import { mcpInputSchema, mcpTool, mcpToolName } from "./mcp-tool.js";
import { mcpServerNameProblem } from "./mcp-tool-name.js";

describe("mcp tool names", () => {
	it("is mcp__<server>__<tool> when that is a valid name of 64 characters or fewer", () => {
		expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
	});

	it("shortens a longer name with a stable hash, keeping it unique and within 64 characters", () => {
		const long = mcpToolName("everything", "a".repeat(80));
		expect(long).toHaveLength(64);
		expect(long).toMatch(/^mcp__everything__a+_[0-9a-f]{8}$/);
		expect(mcpToolName("everything", "a".repeat(80))).toBe(long);
		expect(mcpToolName("everything", `${"a".repeat(79)}b`)).not.toBe(long);
	});

	it("replaces characters a model provider refuses, and tells apart tools that would collide", () => {
		const dotted = mcpToolName("fs", "read.file");
		expect(dotted).toMatch(/^mcp__fs__read_file_[0-9a-f]{8}$/);
		expect(dotted).not.toBe(mcpToolName("fs", "read_file"));
	});
});

describe("mcp tool definition", () => {
	it("is never read-only and always asks by default, whatever the server's annotations", () => {
		const tool = mcpTool({ server: "s", tool: "t", description: "d", inputSchema: { type: "object" }, timeoutMs: 1000 });
		expect([tool.readOnly, tool.requiresConfirmation]).toEqual([false, true]);
		expect(tool.description).toContain('MCP tool "t" of server "s"');
	});

	it("validates arguments with a draft-07 schema as servers send them", () => {
		const schema = { type: "object", properties: { a: { type: "number" } }, required: ["a"], additionalProperties: false, $schema: "http://json-schema.org/draft-07/schema#" };
		const tool = mcpTool({ server: "s", tool: "t", description: "d", inputSchema: schema, timeoutMs: 1000 });
		expect(mcpInputSchema(schema).$schema).toBe("https://json-schema.org/draft/2020-12/schema");
		expect(validateArguments(tool, { a: 1 })).toEqual({ ok: true, value: { a: 1 } });
		expect(validateArguments(tool, { a: "x" })).toEqual({ ok: false, error: "mcp__s__t: /a must be number" });
	});

	it("gives every session's copy of the same schema one object, so it is compiled once; another schema gets its own", () => {
		const listed = () => ({ type: "object", properties: { q: { type: "string" } } });
		const first = mcpTool({ server: "s", tool: "t", description: "d", inputSchema: listed(), timeoutMs: 1000 });
		const again = mcpTool({ server: "s", tool: "t", description: "d", inputSchema: listed(), timeoutMs: 1000 });
		expect(again.inputSchema).toBe(first.inputSchema);
		expect(mcpInputSchema({ type: "object", properties: { r: { type: "string" } } })).not.toBe(first.inputSchema);
	});
});

describe("mcp tool names that could meet", () => {
	it("refuses a server name that holds __ or ends in _, naming the separator", () => {
		expect(mcpServerNameProblem("a__b")).toMatch(/holds "__", the separator/);
		expect(mcpServerNameProblem("a_")).toMatch(/ends in "_"/);
		expect(mcpServerNameProblem("a.b")).toMatch(/1-32 letters/);
		expect(mcpServerNameProblem("my_server-2")).toBeUndefined();
	});

	it("hashes a plain name that ends like a hashed one, so a server cannot list another tool's hashed name", () => {
		const hashed = mcpToolName("fs", "read.file");
		const forged = hashed.slice("mcp__fs__".length);
		expect(mcpToolName("fs", forged)).not.toBe(hashed);
		expect(mcpToolName("fs", forged)).toMatch(/^mcp__fs__read_file_[0-9a-f]{8}_[0-9a-f]{8}$/);
	});
});

describe("mcp tool names read one way", () => {
	it("hashes a tool name with __ or an edge _, so mcp__a__b__x is never tool b__x of a", () => {
		expect(mcpToolName("notes", "save__echo")).toMatch(/^mcp__notes__save__echo_[0-9a-f]{8}$/);
		expect(mcpToolName("notes", "_echo")).toMatch(/^mcp__notes___echo_[0-9a-f]{8}$/);
		expect(mcpToolName("notes", "echo_")).toMatch(/^mcp__notes__echo__[0-9a-f]{8}$/);
		expect(mcpToolName("notes", "save_echo")).toBe("mcp__notes__save_echo");
	});
});
