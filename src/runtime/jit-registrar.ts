/**
 * How register_tool adds a JIT tool to its session: into the session's ToolRegistry (the model sees
 * it from its next request), recorded as `jit.registered`. A built-in tool is never replaced; the
 * same source again changes nothing; a different source is a new version, which this call's
 * approval (register_tool always asks) covered. A schema the argument validator cannot compile is
 * refused here, so the tool never exists.
 */
import type { EvidenceRecorder } from "../kernel/evidence/evidence-recorder.js";
import { schemaProblem } from "../tools/argument-validator.js";
import { isJitTool, jitTool } from "../tools/jit-tool.js";
import type { ToolRegistry } from "../tools/registry.js";
import { type JitRegistrar, ToolError } from "../tools/tool.js";

export function jitRegistrar(tools: ToolRegistry, recorder: EvidenceRecorder, callId: string): JitRegistrar {
	return {
		async register(registration) {
			const existing = tools.get(registration.name);
			if (existing && !isJitTool(existing)) throw new ToolError(`${registration.name} is a built-in tool`);
			if (existing && existing.jit.sha256 === registration.sha256) return "unchanged";
			// Refused here, in words the model reads, rather than at the tool's first call, where a schema
			// the validator cannot compile would have nothing to check the arguments with.
			const problem = schemaProblem(registration.inputSchema);
			if (problem !== undefined) throw new ToolError(`input_schema is not a schema Warden can check arguments with (JSON Schema 2020-12, strict): ${problem}`);
			const data: Record<string, unknown> = {
				name: registration.name,
				sha256: registration.sha256,
				description: registration.description,
				schema: registration.inputSchema,
			};
			if (existing) data.previous_sha256 = existing.jit.sha256;
			// Recorded before the model can see it: a tool with no registration record never runs.
			await recorder.audit("jit.registered", data, callId);
			tools.replace(jitTool(registration));
			return existing ? "new_version" : "registered";
		},
	};
}
