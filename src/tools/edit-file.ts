/** edit_file: replace one exact, unique occurrence of a string in a file. */
import { withKernelFailures } from "./kernel-failures.js";
import { truncateText } from "./result-text.js";
import { type ToolDefinition, ToolError } from "./tool.js";

export type EditFileArgs = {
	path: string;
	old: string;
	new: string;
};

/** Occurrences of `needle`, overlapping ones included: `aa` in `aaa` is ambiguous, so it counts twice. */
export function countOccurrences(haystack: string, needle: string): number {
	let count = 0;
	for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) count++;
	return count;
}

export const editFileTool: ToolDefinition<EditFileArgs> = {
	name: "edit_file",
	description:
		"Replace an exact piece of text in a file with new text. `old` must occur exactly once in the file; include enough surrounding lines to make it unique.",
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: {
			path: { type: "string", minLength: 1, description: "File path, relative to the workspace root." },
			old: { type: "string", description: "The exact text to replace; must occur exactly once." },
			new: { type: "string", description: "The text to put in its place." },
		},
		required: ["path", "old", "new"],
		additionalProperties: false,
	},
	readOnly: false,
	requiresConfirmation: true,
	ruleSubject: (args) => ({ kind: "path", value: args.path }),
	execute: (args, ctx) =>
		withKernelFailures(async () => {
			if (args.old === "") throw new ToolError("old is empty: give the exact text to replace");
			if (args.old === args.new) throw new ToolError("old and new are identical: nothing to change");
			const file = await ctx.kernel.fs.read(args.path, { maxBytes: ctx.limits.maxReadBytes });
			const count = countOccurrences(file.content, args.old);
			if (count === 0) throw new ToolError(`old text not found in ${file.path}`);
			if (count > 1) {
				throw new ToolError(`old text occurs ${count} times in ${file.path}; include more context so it occurs exactly once`);
			}
			const at = file.content.indexOf(args.old);
			// Slicing, not String.replace: `$&` and friends in the new text must stay literal.
			const next = file.content.slice(0, at) + args.new + file.content.slice(at + args.old.length);
			const outcome = await ctx.kernel.fs.write(file.path, next);
			return { output: truncateText(`edited ${outcome.path}: replaced 1 occurrence\n${outcome.diff}`, ctx.limits.maxResultChars) };
		}),
};
