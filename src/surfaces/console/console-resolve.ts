/**
 * Resolving a task run's needs_attention from the console: the one write to task runs the console
 * makes. It opens the state dir for writing only for this (no recovery: the console settles
 * nothing another process left), records "console" as who resolved it, and closes again.
 */
import { randomUUID } from "node:crypto";
import { Runtime } from "../../runtime/runtime.js";
import { TaskRunError, TaskRuns } from "../../runtime/task-runs.js";

export async function resolveRunAsConsole(stateDir: string, runId: string): Promise<{ ok: true; state: string } | { ok: false; error: string }> {
	const runtime = await Runtime.open({ stateDir, recover: false });
	try {
		const outcome = await new TaskRuns(runtime).resolve(runId, `console-${randomUUID()}`, "console");
		return { ok: true, state: outcome.result.state };
	} catch (err) {
		if (err instanceof TaskRunError) return { ok: false, error: err.message };
		throw err;
	} finally {
		await runtime.close();
	}
}
