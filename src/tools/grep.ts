/** grep: lines matching a JavaScript regular expression in the text files under a path. */
import { BinaryFileError, FileTooLargeError, FsPrimitiveError } from "../kernel/kernel-errors.js";
import { withKernelFailures } from "./kernel-failures.js";
import { truncateText } from "./result-text.js";
import { SEARCH_SKIP_DIRS } from "./search-scope.js";
import { type ToolDefinition, ToolError } from "./tool.js";

export type GrepArgs = {
	pattern: string;
	path?: string;
};

export interface GrepToolOptions {
	/** Matching lines reported before the search stops. */
	maxMatches?: number;
	/** Files examined before the search gives up. */
	maxScannedFiles?: number;
	/** Larger files are skipped. */
	maxFileBytes?: number;
	/** A matching line longer than this is cut. */
	maxLineChars?: number;
}

function compile(pattern: string): RegExp {
	try {
		return new RegExp(pattern);
	} catch (err) {
		throw new ToolError(`pattern is not a valid JavaScript regular expression: ${err instanceof Error ? err.message : String(err)}`);
	}
}

export function createGrepTool(options: GrepToolOptions = {}): ToolDefinition<GrepArgs> {
	const maxMatches = options.maxMatches ?? 200;
	const maxScannedFiles = options.maxScannedFiles ?? 20_000;
	const maxFileBytes = options.maxFileBytes ?? 1_000_000;
	const maxLineChars = options.maxLineChars ?? 300;
	return {
		name: "grep",
		description:
			'Search text files for lines matching a JavaScript regular expression. Reports "file:line: text". Searches the whole workspace unless a path is given; skips binary files, .git and node_modules.',
		inputSchema: {
			$schema: "https://json-schema.org/draft/2020-12/schema",
			type: "object",
			properties: {
				pattern: { type: "string", minLength: 1, description: "JavaScript regular expression, matched against each line." },
				path: { type: "string", minLength: 1, description: 'File or directory to search, relative to the workspace root (default ".").' },
			},
			required: ["pattern"],
			additionalProperties: false,
		},
		readOnly: true,
		requiresConfirmation: false,
		ruleSubject: (args) => ({ kind: "path", value: args.path ?? "." }),
		execute: (args, ctx) =>
			withKernelFailures(async () => {
				const regex = compile(args.pattern);
				const root = args.path ?? ".";
				const walked = await ctx.kernel.fs.walk(root, { limit: maxScannedFiles, skipDirs: SEARCH_SKIP_DIRS });
				const lines: string[] = [];
				let skippedLarge = 0;
				let capped = false;

				for (const file of walked.paths) {
					if (capped || ctx.signal.aborted) break;
					let content: string;
					try {
						content = (await ctx.kernel.fs.read(file, { maxBytes: maxFileBytes })).content;
					} catch (err) {
						if (err instanceof FileTooLargeError) skippedLarge++;
						// Binary files are not searched; a file that vanished mid-search is simply gone.
						if (err instanceof BinaryFileError || err instanceof FsPrimitiveError) continue;
						throw err;
					}
					const fileLines = content.split(/\r?\n/);
					for (let i = 0; i < fileLines.length; i++) {
						const text = fileLines[i]!;
						if (!regex.test(text)) continue;
						if (lines.length >= maxMatches) {
							capped = true;
							break;
						}
						const shown = text.length > maxLineChars ? `${text.slice(0, maxLineChars)}…` : text;
						lines.push(`${file}:${i + 1}: ${shown}`);
					}
				}

				const notes: string[] = [];
				if (lines.length === 0) notes.push(`no matches for /${args.pattern}/ under ${root}`);
				if (capped) notes.push(`[stopped after ${maxMatches} matches]`);
				if (walked.truncated) notes.push(`[stopped after scanning ${maxScannedFiles} files: matches may be missing]`);
				if (skippedLarge > 0) notes.push(`[skipped ${skippedLarge} files larger than ${maxFileBytes} bytes]`);
				return { output: truncateText([...lines, ...notes].join("\n"), ctx.limits.maxResultChars) };
			}),
	};
}

export const grepTool = createGrepTool();
