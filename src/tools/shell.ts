/** shell: one bash command in the workspace, with a timeout that ends its whole process group. */
import type { ExecOutcome } from "../kernel/primitives.js";
import { withKernelFailures } from "./kernel-failures.js";
import { truncateText } from "./result-text.js";
import type { ToolDefinition } from "./tool.js";

export type ShellArgs = {
	command: string;
	timeout_ms?: number;
};

/** Labels and line breaks around the two streams, reserved out of the budget. */
const FRAME_CHARS = 64;

/**
 * Status lines, then stdout and stderr. When the whole does not fit the model's budget, each
 * stream is cut on its own, so a flood on stdout cannot hide the error on stderr.
 */
function describe(outcome: ExecOutcome, timeoutMs: number, maxOutputBytes: number, maxChars: number): string {
	const status = outcome.exitCode !== null ? `exit code: ${outcome.exitCode}` : `exit code: none (ended by ${outcome.signal ?? "the host"})`;
	const head = [status];
	if (outcome.timedOut) head.push(`[timed out after ${timeoutMs} ms: the command and its children were killed]`);
	if (outcome.cancelled) head.push("[cancelled: the command and its children were killed]");
	if (outcome.truncated) head.push(`[output truncated: only the first ${maxOutputBytes} bytes were captured]`);
	const headText = head.join("\n");

	const stdout = outcome.stdout.replace(/\n$/, "");
	const stderr = outcome.stderr.replace(/\n$/, "");
	const budget = Math.max(0, maxChars - headText.length - FRAME_CHARS);
	const stderrBudget = Math.max(Math.floor(budget / 3), budget - stdout.length);
	const stderrShown = truncateText(stderr, stderrBudget);
	const stdoutShown = truncateText(stdout, budget - stderrShown.length);
	return [
		headText,
		"stdout:",
		stdoutShown === "" ? "(empty)" : stdoutShown,
		"stderr:",
		stderrShown === "" ? "(empty)" : stderrShown,
	].join("\n");
}

export const shellTool: ToolDefinition<ShellArgs> = {
	name: "shell",
	description:
		"Run a bash command in the workspace directory and return its exit code, stdout and stderr. Stdin is closed. The command and everything it starts are killed at the timeout.",
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: {
			command: { type: "string", minLength: 1, description: "The bash command line." },
			timeout_ms: {
				type: "integer",
				minimum: 1,
				description: "Wall-clock limit in milliseconds; the host caps it.",
			},
		},
		required: ["command"],
		additionalProperties: false,
	},
	readOnly: false,
	requiresConfirmation: true,
	ruleSubject: (args) => ({ kind: "command", value: args.command }),
	execute: (args, ctx) =>
		withKernelFailures(async () => {
			const timeoutMs = Math.min(args.timeout_ms ?? ctx.limits.shellTimeoutMs, ctx.limits.shellMaxTimeoutMs);
			const maxOutputBytes = ctx.limits.shellMaxOutputBytes;
			const outcome = await ctx.kernel.shell.exec(args.command, { timeoutMs, maxOutputBytes });
			return {
				output: truncateText(describe(outcome, timeoutMs, maxOutputBytes, ctx.limits.maxResultChars), ctx.limits.maxResultChars),
				isError: outcome.exitCode !== 0 || outcome.timedOut || outcome.cancelled,
			};
		}),
};
