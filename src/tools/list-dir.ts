/** list_dir: the entries of one directory in the workspace. */
import type { DirEntry } from "../kernel/primitives.js";
import { withKernelFailures } from "./kernel-failures.js";
import { truncateText } from "./result-text.js";
import type { ToolDefinition } from "./tool.js";

export type ListDirArgs = {
	path: string;
};

function entryLine(e: DirEntry): string {
	switch (e.type) {
		case "dir":
			return `${e.name}/`;
		case "symlink":
			return `${e.name} (symlink)`;
		case "other":
			return `${e.name} (special file)`;
		default:
			return e.name;
	}
}

export const listDirTool: ToolDefinition<ListDirArgs> = {
	name: "list_dir",
	description: 'List the entries of a directory in the workspace, one per line; directories end with "/". Use "." for the root.',
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: {
			path: { type: "string", minLength: 1, description: 'Directory path, relative to the workspace root ("." for the root).' },
		},
		required: ["path"],
		additionalProperties: false,
	},
	readOnly: true,
	requiresConfirmation: false,
	ruleSubject: (args) => ({ kind: "path", value: args.path }),
	execute: (args, ctx) =>
		withKernelFailures(async () => {
			const entries = await ctx.kernel.fs.list(args.path);
			if (entries.length === 0) return { output: `(${args.path} is an empty directory)` };
			return { output: truncateText(entries.map(entryLine).join("\n"), ctx.limits.maxResultChars) };
		}),
};
