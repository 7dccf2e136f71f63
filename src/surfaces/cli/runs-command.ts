/**
 * `warden runs …`: durable task runs driven by idempotent commands. A command id seen before
 * prints the stored result and runs nothing; a run that needs attention says which effect and why.
 */
import type { Command } from "commander";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { CommandOutcome, RunCommandResult, TaskRuns, TaskRunView } from "../../runtime/task-runs.js";
import { EXIT } from "./cli-error.js";
import { shownEvent } from "./render-event.js";
import { contentLines, shownLines } from "./shown-lines.js";
import { type SessionCliFlags, sessionFlags } from "./run-command.js";

interface OutputFlags {
	json?: boolean;
	stateDir?: string;
}

type Out = (text: string) => void;

/** Events go to stderr: stdout is the command's result, the same on a retry. */
const progress = (event: AnyWardenEvent) => {
	const line = shownEvent(event);
	if (line !== undefined) process.stderr.write(`${line}\n`);
};

export function registerRunsCommand(program: Command, out: Out): void {
	const runs = program.command("runs").description("durable task runs: start, follow up, continue, cancel, show; each command keyed by your id");

	sessionFlags(
		runs
			.command("start")
			.description("create a run and its session and run the task; the same --id again returns the stored result")
			.argument("<task>", "what the agent should do")
			.requiredOption("--id <id>", "the run's id, chosen by you: it is also the start command's id")
			.option("--json", "print the result as JSON"),
	).action(async (task: string, flags: SessionCliFlags & OutputFlags & { id: string }) => {
		const { sessionOptionsFromFlags, withoutConfig } = await import("./session-options.js");
		const options = withoutConfig(await sessionOptionsFromFlags(flags, progress));
		process.exitCode = await withRuns(flags, out, (r) => r.start(flags.id, task, options));
	});

	sessionFlags(
		runs
			.command("follow-up")
			.description("run another turn of the run's conversation")
			.argument("<run>", "run id")
			.argument("<text>", "the follow-up")
			.requiredOption("--command-id <id>", "this command's id, chosen by you: a retry with it runs nothing again")
			.option("--json", "print the result as JSON"),
	).action(async (run: string, text: string, flags: SessionCliFlags & OutputFlags & { commandId: string }) => {
		process.exitCode = await withRuns(flags, out, async (r, runtime) => r.followUp(run, flags.commandId, text, await resumeOptions(runtime, run, flags)));
	});

	sessionFlags(
		runs
			.command("continue")
			.description("go on after an interruption: resume the run's session with \"continue\"")
			.argument("<run>", "run id")
			.requiredOption("--command-id <id>", "this command's id, chosen by you: a retry with it runs nothing again")
			.option("--json", "print the result as JSON"),
	).action(async (run: string, flags: SessionCliFlags & OutputFlags & { commandId: string }) => {
		process.exitCode = await withRuns(flags, out, async (r, runtime) => r.continue(run, flags.commandId, await resumeOptions(runtime, run, flags)));
	});

	for (const [name, description] of [
		["cancel", "cancel the run: no further follow-up runs"],
		["resolve", "acknowledge what the run needs attention for (recorded in the audit); it returns to its last state"],
	] as const) {
		runs
			.command(name)
			.description(description)
			.argument("<run>", "run id")
			.requiredOption("--command-id <id>", "this command's id, chosen by you: a retry with it does nothing again")
			.option("--state-dir <dir>", "where sessions and the audit chain live (default $WARDEN_HOME)")
			.option("--json", "print the result as JSON")
			.action(async (run: string, flags: OutputFlags & { commandId: string }) => {
				process.exitCode = await withRuns(flags, out, (r) => (name === "cancel" ? r.cancel(run, flags.commandId) : r.resolve(run, flags.commandId)));
			});
	}

	runs
		.command("show")
		.description("a run's state, commands, and each unknown effect or interrupted command it needs attention for")
		.argument("<run>", "run id")
		.option("--state-dir <dir>", "where sessions and the audit chain live (default $WARDEN_HOME)")
		.option("--json", "print the run as JSON")
		.action(async (run: string, flags: OutputFlags) => {
			process.exitCode = await withRuntime(flags, async (runtime) => {
				const { TaskRuns } = await import("../../runtime/task-runs.js");
				const view = await new TaskRuns(runtime).show(run);
				out(flags.json ? `${JSON.stringify(view)}\n` : renderView(view));
				return EXIT.ok;
			});
		});

	runs
		.command("list")
		.description("runs, newest first")
		.option("--state-dir <dir>", "where sessions and the audit chain live (default $WARDEN_HOME)")
		.option("--json", "print the runs as JSON")
		.action(async (flags: OutputFlags) => {
			process.exitCode = await withRuntime(flags, async (runtime) => {
				const { TaskRuns } = await import("../../runtime/task-runs.js");
				const list = await new TaskRuns(runtime).list();
				if (flags.json) out(`${JSON.stringify(list)}\n`);
				else out(shownLines(list.map((run) => `${run.id}  ${run.state}  session ${run.session}  ${run.updated_at}${run.attention ? `  (${run.attention})` : ""}`)));
				return EXIT.ok;
			});
		});
}

/** A write open: recovery settles what a crash left before any run is judged. */
async function withRuntime(flags: OutputFlags, act: (runtime: Runtime) => Promise<number>): Promise<number> {
	// Loaded here, not at start: `warden --version` and `--help` never load the runtime.
	const [{ Runtime }, { TaskRunError }] = await Promise.all([import("../../runtime/runtime.js"), import("../../runtime/task-runs.js")]);
	const runtime = await Runtime.open(flags.stateDir ? { stateDir: flags.stateDir } : {});
	try {
		return await act(runtime);
	} catch (err) {
		if (!(err instanceof TaskRunError)) throw err;
		process.stderr.write(shownLines([`warden: ${err.message}`]));
		return EXIT.failed;
	} finally {
		await runtime.close();
	}
}

function withRuns(flags: OutputFlags, out: Out, command: (runs: TaskRuns, runtime: Runtime) => Promise<CommandOutcome>): Promise<number> {
	return withRuntime(flags, async (runtime) => {
		const { TaskRuns } = await import("../../runtime/task-runs.js");
		const outcome = await command(new TaskRuns(runtime), runtime);
		if (outcome.interrupted) process.stderr.write(shownLines([`warden: ${outcome.interrupted}`]));
		else if (outcome.replayed) process.stderr.write(shownLines([`warden: command ${outcome.result.command} of run ${outcome.result.run} was already done; its stored result follows`]));
		out(flags.json ? `${JSON.stringify(outcome.result)}\n` : renderResult(outcome.result));
		return outcome.interrupted === undefined && outcome.result.state === "completed" ? EXIT.ok : EXIT.failed;
	});
}

async function resumeOptions(runtime: Runtime, runId: string, flags: SessionCliFlags) {
	const [{ TaskRunError }, { resumeOptionsFromFlags }] = await Promise.all([import("../../runtime/task-runs.js"), import("./session-options.js")]);
	const run = await runtime.store.getTaskRun(runId);
	if (!run) throw new TaskRunError(`unknown run ${runId}`);
	const session = await runtime.getSession(run.session);
	if (!session) throw new TaskRunError(`run ${runId}: its session ${run.session} is not in the store`);
	return resumeOptionsFromFlags(flags, progress, session);
}

function renderResult(r: RunCommandResult): string {
	const lines = [`run ${r.run}: ${r.state} (${r.kind} ${r.command}, session ${r.session}${r.turn !== undefined ? `, turn ${r.turn}` : ""})`];
	if (r.text) lines.push(...contentLines(r.text));
	if (r.error) lines.push(`error: ${r.error}`);
	if (r.attention) lines.push(`needs attention: ${r.attention}`);
	return shownLines(lines);
}

function renderView(v: TaskRunView): string {
	const lines = [`run ${v.run.id}: ${v.run.state} (session ${v.run.session}, updated ${v.run.updated_at})`];
	for (const e of v.unknownEffects) {
		lines.push(`unknown effect: ${e.kind} ${e.resource} (operation ${e.operation}, call ${e.call_id}): ${e.why}`);
	}
	for (const c of v.interrupted) lines.push(`interrupted: command ${c.command_id} (${c.kind}) was accepted but never finished`);
	if (v.run.state === "needs_attention") lines.push(`resolve with: warden runs resolve ${v.run.id} --command-id <id>`);
	lines.push("commands:");
	for (const c of v.commands) {
		const state = (c.result as Partial<RunCommandResult> | undefined)?.state;
		lines.push(`  ${c.command_id}  ${c.kind}  ${c.state}${state ? ` → ${state}` : ""}${c.input !== undefined ? `  ${JSON.stringify(c.input)}` : ""}`);
	}
	return shownLines(lines);
}
