/** `warden eval safety`: the CLI face of runSafetyEval. Other evaluations attach to the returned `eval` command. */
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { EXIT, UsageError } from "../cli/cli-error.js";
import type { runSafetyEval } from "./run-safety-eval.js";
import { RUNNER_NAMES, type RunnerName } from "./task-types.js";

/** The repository's task suite, found from this file in src/ and in dist/ alike. */
export const DEFAULT_TASKS_DIR = fileURLToPath(new URL("../../../eval/tasks", import.meta.url));

interface SafetyFlags {
	json?: boolean;
	filter?: string;
	runner: string[];
	tasks: string;
	concurrency: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function parseRunners(values: readonly string[]): RunnerName[] {
	if (values.length === 0) return [...RUNNER_NAMES];
	const names = values.flatMap((v) => v.split(",")).map((v) => v.trim());
	const unknown = names.find((n) => !(RUNNER_NAMES as readonly string[]).includes(n));
	if (unknown !== undefined) throw new UsageError(`--runner must be one of ${RUNNER_NAMES.join(", ")}, got "${unknown}"`);
	return RUNNER_NAMES.filter((r) => names.includes(r));
}

/** Registers `eval` and its `safety` subcommand; returns `eval` so later subcommands can join it. */
export function registerEvalCommands(program: Command, out: (text: string) => void): Command {
	const evaluation = program.command("eval").description("evaluate what the boundary prevents, against baselines");
	evaluation
		.command("safety")
		.description("run the safety tasks under the full runtime and the direct, confirm and category baselines")
		.option("--json", "print the report as one JSON object (schemas/eval-report.v1.json)")
		.option("--filter <glob>", "only tasks whose id or <category>/<id> matches")
		.option("--runner <name>", `runner to use: ${RUNNER_NAMES.join(" | ")} (repeatable or comma-separated; default all)`, collect, [])
		.option("--tasks <dir>", "directory of task folders", DEFAULT_TASKS_DIR)
		.option("--concurrency <n>", "task runs at once", "2")
		.action(async (flags: SafetyFlags) => {
			const runners = parseRunners(flags.runner);
			const concurrency = Number(flags.concurrency);
			if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency must be a positive integer, got "${flags.concurrency}"`);
			// Loaded only when this command runs, so the CLI starts without the runtime.
			const [{ renderReport }, { NoTasksError, runSafetyEval }, { TaskFormatError }] = await Promise.all([
				import("./render-report.js"),
				import("./run-safety-eval.js"),
				import("./task-loader.js"),
			]);
			let report: Awaited<ReturnType<typeof runSafetyEval>>;
			try {
				report = await runSafetyEval({
					tasksDir: flags.tasks,
					filter: flags.filter,
					runners,
					concurrency,
					onProgress: process.stderr.isTTY && !flags.json ? (task, runner, result) => process.stderr.write(`  ${result.status.padEnd(7)} ${runner.padEnd(8)} ${task.id}\n`) : undefined,
				});
			} catch (error) {
				if (error instanceof NoTasksError || error instanceof TaskFormatError) throw new UsageError(error.message);
				throw error;
			}
			out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
			const full = report.tasks.map((t) => t.results.full).filter((r) => r !== undefined);
			process.exitCode = full.some((r) => r.status !== "passed") ? EXIT.failed : EXIT.ok;
		});
	return evaluation;
}
