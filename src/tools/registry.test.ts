import { describe, expect, it } from "vitest";
import { builtinTools, ToolRegistry } from "./registry.js";
import { readFileTool } from "./read-file.js";

describe("ToolRegistry", () => {
	it("holds the eleven built-in tools by name, in order", () => {
		const registry = new ToolRegistry(builtinTools());
		expect(registry.list().map((t) => t.name)).toEqual(["read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "shell", "web_fetch", "agent", "todo_write", "ask_user"]);
		expect(registry.get("grep")?.readOnly).toBe(true);
		expect(registry.get("nope")).toBeUndefined();
	});

	it("exposes schemas in the shape a model provider sends", () => {
		const schemas = new ToolRegistry(builtinTools()).schemas();
		const shell = schemas.find((s) => s.name === "shell");
		expect(shell?.parameters).toMatchObject({ type: "object", required: ["command"], additionalProperties: false });
		for (const s of schemas) {
			expect(s.description.length).toBeGreaterThan(20);
			expect(s.parameters.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
			expect(s.parameters.additionalProperties).toBe(false);
		}
	});

	it("refuses a duplicate or malformed name", () => {
		const registry = new ToolRegistry([readFileTool]);
		expect(() => registry.register(readFileTool)).toThrow("tool read_file is already registered");
		expect(() => registry.register({ ...readFileTool, name: "read file" })).toThrow(/must be 1-64 letters/);
	});

	it("marks exactly the tools that change the world as confirmed and not read-only", () => {
		const flags = builtinTools().map((t) => [t.name, t.readOnly, t.requiresConfirmation]);
		expect(flags).toEqual([
			["read_file", true, false],
			["write_file", false, true],
			["edit_file", false, true],
			["list_dir", true, false],
			["glob", true, false],
			["grep", true, false],
			["shell", false, true],
			// It sends the URL, headers and body out of the host.
			["web_fetch", false, true],
			// Its child's effects are decided in the child, each under an attenuated authority.
			["agent", true, false],
			// The todo list is evidence of the session, not an effect on the world.
			["todo_write", true, false],
			// Its question goes to the person through the human primitive, admitted as egress on human:user.
			["ask_user", true, false],
		]);
	});
});

describe("ToolRegistry.replace", () => {
	it("puts a new version in place of the old one, keeping its position", () => {
		const registry = new ToolRegistry(builtinTools().slice(0, 2));
		const first = registry.list()[0]!;
		registry.replace({ ...first, description: "v2" });
		expect(registry.list().map((t) => t.name)).toEqual(builtinTools().slice(0, 2).map((t) => t.name));
		expect(registry.get(first.name)?.description).toBe("v2");
		expect(() => registry.replace({ ...first, name: "bad name" })).toThrow(/must be 1-64/);
	});
});
