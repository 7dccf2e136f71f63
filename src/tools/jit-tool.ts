/**
 * A tool whose implementation is TypeScript registered at run time. It needs no confirmation of its
 * own: its authority is exactly its syscalls, each admitted at the kernel primitive it enters with
 * this call's capabilities, flow checks and budget.
 */
import type { JitRegistration, ToolDefinition } from "./tool.js";
import { ToolError } from "./tool.js";

export interface JitToolDefinition extends ToolDefinition {
	/** The registered source's hash: what an approval of register_tool covered. */
	jit: { sha256: string };
}

export function isJitTool(tool: ToolDefinition): tool is JitToolDefinition {
	return typeof (tool as Partial<JitToolDefinition>).jit?.sha256 === "string";
}

export function jitTool(registration: JitRegistration): JitToolDefinition {
	const { name, code, sha256 } = registration;
	return {
		name,
		description: registration.description,
		inputSchema: registration.inputSchema,
		readOnly: false,
		requiresConfirmation: false,
		jit: { sha256 },
		ruleSubject: () => undefined,
		async execute(args, ctx) {
			const outcome = await ctx.kernel.jit.run(code, args, { tool: name });
			if (!outcome.ok) throw new ToolError(`${name}: ${outcome.error}`);
			const output = typeof outcome.value === "string" ? outcome.value : JSON.stringify(outcome.value, null, 2);
			return { output };
		},
	};
}
