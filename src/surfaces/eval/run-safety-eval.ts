/**
 * `runSafetyEval`: every selected task under every selected runner, each in its own throw-away
 * directory, a few at a time, against one sink server; then the scored report.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBaseline } from "./baseline-runner.js";
import { buildFixture } from "./fixture.js";
import { runFull } from "./full-runner.js";
import { runRecoveryTask } from "./recovery-runner.js";
import { runTerminalTask } from "./terminal-runner.js";
import { EVAL_REPORT_SCHEMA, type SafetyReport, type TaskRunReport } from "./report-types.js";
import { probeSandbox, type SandboxInfo } from "./sandbox-shell.js";
import { nonDiscriminating, scoreTaskRun, summarizeRunner, taskReport } from "./scoring.js";
import { SinkServer } from "./sink-server.js";
import { loadTasks } from "./task-loader.js";
import type { TaskRun } from "./task-run.js";
import { type EvalTask, RUNNER_NAMES, type RunnerName } from "./task-types.js";

export interface SafetyEvalOptions {
	tasksDir: string;
	/** A glob over task ids or `<category>/<id>`. */
	filter?: string;
	/** Default: all four. */
	runners?: readonly RunnerName[];
	/** Task runs at once (default 2). */
	concurrency?: number;
	/** Called as each task finishes under one runner. */
	onProgress?: (task: EvalTask, runner: RunnerName, result: TaskRunReport) => void;
}

/** Nothing to evaluate: the filter matched no task. */
export class NoTasksError extends Error {
	override name = "NoTasksError";
}

async function runOne(task: EvalTask, runner: RunnerName, root: string, sink: SinkServer, sandbox: SandboxInfo): Promise<TaskRun> {
	const dir = join(root, task.id, runner);
	if (task.crashAt !== undefined && runner !== "full") {
		// A baseline has no durable state to crash and recover: the task does not apply to it.
		return { task, runner, calls: [], problems: [`not applicable: the ${runner} baseline keeps no durable state, so a crash at ${task.crashAt} has nothing to recover`], failures: [], prompts: 0, releases: 0 };
	}
	try {
		const dirs = await buildFixture(dir, task, sink.urlFor(task.id, runner));
		if (runner !== "full") return await runBaseline(task, dirs, sink, runner, sandbox);
		if (task.terminal !== undefined) return await runTerminalTask(task, dirs, sink);
		return task.crashAt === undefined ? await runFull(task, dirs, sink) : await runRecoveryTask(task, dirs, sink);
	} catch (error) {
		const why = error instanceof Error ? `${error.name}: ${error.message.split("\n")[0]}` : String(error);
		return { task, runner, calls: [], problems: [`the run could not be completed: ${why}`], failures: [], prompts: 0, releases: 0 };
	} finally {
		await rm(dir, { recursive: true, force: true });
	}
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the items' order. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
	const results: R[] = new Array(items.length);
	let next = 0;
	const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
		while (next < items.length) {
			const at = next++;
			results[at] = await work(items[at]!);
		}
	});
	await Promise.all(lanes);
	return results;
}

export async function runSafetyEval(options: SafetyEvalOptions): Promise<SafetyReport> {
	const started = Date.now();
	const runners = RUNNER_NAMES.filter((r) => (options.runners ?? RUNNER_NAMES).includes(r));
	const tasks = loadTasks(options.tasksDir, options.filter);
	if (tasks.length === 0) throw new NoTasksError(`no task in ${options.tasksDir} matches ${options.filter ?? "*"}`);
	const needsSandbox = runners.some((r) => r !== "full");
	const sandbox: SandboxInfo = needsSandbox ? await probeSandbox() : { available: false, detail: "not needed: only the full runner ran" };
	const sink = await SinkServer.start();
	const root = await mkdtemp(join(tmpdir(), "warden-eval-"));
	try {
		const units = tasks.flatMap((task) => runners.map((runner) => ({ task, runner })));
		const scored = await pooled(units, options.concurrency ?? 2, async ({ task, runner }) => {
			const result = scoreTaskRun(await runOne(task, runner, root, sink, sandbox));
			options.onProgress?.(task, runner, result);
			return { task, runner, result };
		});
		const taskReports = tasks.map((task) => {
			const results: Partial<Record<RunnerName, TaskRunReport>> = {};
			for (const s of scored) if (s.task === task) results[s.runner] = s.result;
			return taskReport(task, results);
		});
		const report: SafetyReport = {
			report_schema: EVAL_REPORT_SCHEMA,
			generated_at: new Date().toISOString(),
			duration_ms: 0,
			tasks_dir: options.tasksDir,
			filter: options.filter ?? null,
			runners_run: [...runners],
			sandbox: { available: sandbox.available, detail: sandbox.detail },
			runners: {},
			categories: {},
			non_discriminating: runners.includes("direct") ? nonDiscriminating(taskReports) : null,
			tasks: taskReports,
		};
		for (const runner of runners) {
			report.runners[runner] = summarizeRunner(scored.filter((s) => s.runner === runner).map((s) => s.result));
		}
		for (const category of new Set(taskReports.map((t) => t.category))) {
			const inCategory = taskReports.filter((t) => t.category === category);
			const row: SafetyReport["categories"][string] = {};
			for (const runner of runners) {
				row[runner] = { passed: inCategory.filter((t) => t.results[runner]?.status === "passed").length, total: inCategory.length };
			}
			report.categories[category] = row;
		}
		report.duration_ms = Date.now() - started;
		return report;
	} finally {
		await sink.close();
		await rm(root, { recursive: true, force: true });
	}
}
