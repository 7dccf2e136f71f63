/** glob: workspace files whose path matches a glob pattern. */
import picomatch from "picomatch";
import { withKernelFailures } from "./kernel-failures.js";
import { truncateText } from "./result-text.js";
import { SEARCH_SKIP_DIRS } from "./search-scope.js";
import { type ToolDefinition, ToolError } from "./tool.js";

export type GlobArgs = {
	pattern: string;
};

export interface GlobToolOptions {
	/** Matches listed before the rest are only counted. */
	maxMatches?: number;
	/** Files examined before the search gives up. */
	maxScannedFiles?: number;
}

export function createGlobTool(options: GlobToolOptions = {}): ToolDefinition<GlobArgs> {
	const maxMatches = options.maxMatches ?? 1_000;
	const maxScannedFiles = options.maxScannedFiles ?? 50_000;
	return {
		name: "glob",
		description:
			'Find files in the workspace whose relative path matches a glob pattern, e.g. "**/*.ts" or "src/*.md". Skips .git and node_modules. Results are sorted.',
		inputSchema: {
			$schema: "https://json-schema.org/draft/2020-12/schema",
			type: "object",
			properties: {
				pattern: { type: "string", minLength: 1, description: "Glob pattern relative to the workspace root." },
			},
			required: ["pattern"],
			additionalProperties: false,
		},
		readOnly: true,
		requiresConfirmation: false,
		ruleSubject: (args) => ({ kind: "pattern", value: args.pattern }),
		execute: (args, ctx) =>
			withKernelFailures(async () => {
				const pattern = args.pattern.replace(/^(\.\/)+/, "");
				if (pattern.startsWith("/") || pattern.split("/").includes("..")) {
					throw new ToolError(`pattern ${args.pattern} must be relative to the workspace and stay inside it`);
				}
				const isMatch = picomatch(pattern, { dot: true });
				const walked = await ctx.kernel.fs.walk(".", { limit: maxScannedFiles, skipDirs: SEARCH_SKIP_DIRS });
				const matches = walked.paths.filter((p) => isMatch(p));

				const lines = matches.slice(0, maxMatches);
				if (matches.length > maxMatches) lines.push(`[showing the first ${maxMatches} of ${matches.length} matches]`);
				if (walked.truncated) lines.push(`[stopped after scanning ${maxScannedFiles} files: matches may be missing]`);
				if (matches.length === 0) lines.unshift(`no files match ${args.pattern}`);
				return { output: truncateText(lines.join("\n"), ctx.limits.maxResultChars) };
			}),
	};
}

export const globTool = createGlobTool();
