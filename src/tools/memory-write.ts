/**
 * memory_write: keeps a note for later sessions through the kernel's memory.write. The record keeps
 * the label of what this call was proposed from; the tool cannot choose it.
 */
import { MEMORY_SCOPES, type MemoryScope } from "../kernel/memory/memory-request.js";
import { withKernelFailures } from "./kernel-failures.js";
import { type ToolDefinition, ToolError } from "./tool.js";

export type MemoryWriteArgs = {
	title: string;
	content: string;
	scope?: MemoryScope;
	namespace?: string;
	tags?: string[];
	path_hints?: string[];
	ttl_days?: number;
};

export const DEFAULT_MEMORY_SCOPE: MemoryScope = "project";
export const DEFAULT_MEMORY_NAMESPACE = "notes";

export const memoryWriteTool: ToolDefinition<MemoryWriteArgs> = {
	name: "memory_write",
	description:
		"Save a note to memory for later sessions: a short title, the content, optional tags and the workspace paths it is about. scope: project (default: this workspace), user (every workspace) or session (this session only). A note with the same title in the same scope and namespace replaces the older one, which is marked stale.",
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: {
			title: { type: "string", minLength: 1, maxLength: 200 },
			content: { type: "string" },
			scope: { enum: [...MEMORY_SCOPES], description: "project when omitted." },
			namespace: { type: "string", pattern: "^[a-z0-9][a-z0-9._-]{0,63}$", description: "notes when omitted." },
			tags: { type: "array", items: { type: "string", minLength: 1, maxLength: 64 }, maxItems: 20 },
			path_hints: { type: "array", items: { type: "string", minLength: 1 }, maxItems: 20, description: "Workspace-relative paths the note is about." },
			ttl_days: { type: "number", exclusiveMinimum: 0, maximum: 3650, description: "The note expires after this many days." },
		},
		required: ["title", "content"],
		additionalProperties: false,
	},
	readOnly: false,
	requiresConfirmation: false,
	ruleSubject: (args) => ({ kind: "pattern", value: `${args.scope ?? DEFAULT_MEMORY_SCOPE}/${args.namespace ?? DEFAULT_MEMORY_NAMESPACE}` }),
	execute: (args, ctx) =>
		withKernelFailures(async () => {
			if (!ctx.kernel.memory) throw new ToolError("this session keeps no memory");
			const outcome = await ctx.kernel.memory.write({
				scope: args.scope ?? DEFAULT_MEMORY_SCOPE,
				namespace: args.namespace ?? DEFAULT_MEMORY_NAMESPACE,
				title: args.title,
				content: args.content,
				...(args.tags ? { tags: args.tags } : {}),
				...(args.path_hints ? { path_hints: args.path_hints } : {}),
				...(args.ttl_days !== undefined ? { ttl_days: args.ttl_days } : {}),
			});
			const r = outcome.record;
			const lines = [`saved memory ${r.id} in ${r.scope}/${r.namespace}: ${r.title} (labelled ${r.label.sensitivity}, ${r.label.integrity})`];
			if (r.expires_at) lines.push(`expires ${r.expires_at}`);
			if (outcome.superseded.length > 0) lines.push(`marked stale: ${outcome.superseded.join(", ")}`);
			return { output: lines.join("\n") };
		}),
};
