/** write_file: create or replace one file in the workspace; the result shows the diff. */
import { withKernelFailures } from "./kernel-failures.js";
import { truncateText } from "./result-text.js";
import type { ToolDefinition } from "./tool.js";

export type WriteFileArgs = {
	path: string;
	content: string;
};

export const writeFileTool: ToolDefinition<WriteFileArgs> = {
	name: "write_file",
	description:
		"Create a file, or replace its whole content, in the workspace. Missing parent directories are created. Returns the diff.",
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: {
			path: { type: "string", minLength: 1, description: "File path, relative to the workspace root." },
			content: { type: "string", description: "The complete new content of the file." },
		},
		required: ["path", "content"],
		additionalProperties: false,
	},
	readOnly: false,
	requiresConfirmation: true,
	ruleSubject: (args) => ({ kind: "path", value: args.path }),
	execute: (args, ctx) =>
		withKernelFailures(async () => {
			const outcome = await ctx.kernel.fs.write(args.path, args.content);
			const summary = `wrote ${outcome.bytesWritten} bytes to ${outcome.path} (${outcome.created ? "created" : "updated"})`;
			return { output: truncateText(`${summary}\n${outcome.diff}`, ctx.limits.maxResultChars) };
		}),
};
