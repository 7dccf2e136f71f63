/**
 * register_tool: the agent writes a tool in TypeScript. Registering is itself governed — it always
 * asks, and the approval covers exactly this source (its sha256); a changed source is a new tool
 * version that needs its own approval. The tool then runs isolated (src/tools/jit-tool.ts).
 */
import { JitCompileError } from "../kernel/kernel-jit.js";
import { builtinTools } from "./registry.js";
import { type ToolDefinition, ToolError } from "./tool.js";

export type RegisterToolArgs = { name: string; description: string; input_schema: Record<string, unknown>; source: string };

const NAME = /^[a-z][a-z0-9_]{2,40}$/;

export const registerToolTool: ToolDefinition<RegisterToolArgs> = {
	name: "register_tool",
	description:
		"Register a new tool written in TypeScript: `export default async function (input, syscall) { … }`. It runs isolated with no imports, timers, network or filesystem; its only way out is `await syscall(name, args)` with fs.read {path}, fs.write {path, content}, fs.list {path}, fs.walk {path, limit}, fs.delete {path}, net.fetch {url, method?, headers?, body?} or shell.exec {command, timeoutMs?}, each checked like the built-in tools. Returns JSON data. Registering asks the user; the tool appears from your next step.",
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: {
			name: { type: "string", pattern: NAME.source, description: "Lower-case letters, digits and _; not a built-in tool's name." },
			description: { type: "string", minLength: 1, maxLength: 2000 },
			input_schema: { type: "object", description: "JSON Schema (type object) of the tool's arguments." },
			source: { type: "string", minLength: 1, maxLength: 200_000, description: "TypeScript module with a default export async function (input, syscall)." },
		},
		required: ["name", "description", "input_schema", "source"],
		additionalProperties: false,
	},
	readOnly: false,
	requiresConfirmation: true,
	// Rules name the tool being registered: `register_tool(fetch_*)`.
	ruleSubject: (args) => ({ kind: "pattern", value: args.name }),
	async execute(args, ctx) {
		if (!ctx.jit) throw new ToolError("JIT tools are not available in this session");
		if (!NAME.test(args.name)) throw new ToolError(`tool name ${JSON.stringify(args.name)} must match ${NAME.source}`);
		if (builtinTools().some((t) => t.name === args.name) || args.name === registerToolTool.name) throw new ToolError(`${args.name} is a built-in tool`);
		if (args.input_schema.type !== "object") throw new ToolError("input_schema must be a JSON Schema with type object");
		let compiled: { code: string; sha256: string };
		try {
			compiled = ctx.kernel.jit.compile(args.source);
		} catch (err) {
			if (err instanceof JitCompileError) throw new ToolError(err.message);
			throw err;
		}
		const outcome = await ctx.jit.register({ name: args.name, description: args.description, inputSchema: args.input_schema, ...compiled });
		const hash = compiled.sha256.slice(0, 12);
		if (outcome === "unchanged") return { output: `tool ${args.name} is already registered with this source (sha256 ${hash}); nothing changed` };
		const what = outcome === "new_version" ? "registered a new version of" : "registered";
		return { output: `${what} tool ${args.name} (sha256 ${hash}); it is available from your next step` };
	},
};
