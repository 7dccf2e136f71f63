/** read_file: the text of one file in the workspace. */
import { withKernelFailures } from "./kernel-failures.js";
import { truncateText } from "./result-text.js";
import type { ToolDefinition } from "./tool.js";

export type ReadFileArgs = {
	path: string;
};

export const readFileTool: ToolDefinition<ReadFileArgs> = {
	name: "read_file",
	description: "Read a UTF-8 text file in the workspace and return its content. Binary files are refused.",
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: {
			path: { type: "string", minLength: 1, description: "File path, relative to the workspace root." },
		},
		required: ["path"],
		additionalProperties: false,
	},
	readOnly: true,
	requiresConfirmation: false,
	ruleSubject: (args) => ({ kind: "path", value: args.path }),
	execute: (args, ctx) =>
		withKernelFailures(async () => {
			const file = await ctx.kernel.fs.read(args.path, { maxBytes: ctx.limits.maxReadBytes });
			if (file.bytes === 0) return { output: `(${file.path} is empty)` };
			return { output: truncateText(file.content, ctx.limits.maxResultChars) };
		}),
};
