/**
 * `warden recover`: opens the state dir for writing, which runs recovery on open, and prints what it
 * settled. Recovery runs on every write open anyway; this command exists so a user can do it (and
 * see the unknown effects a crash left) without starting a session. Exit 0 when nothing is left
 * unreadable; 1 when some pending row could not be understood and stays pending.
 */
import type { Command } from "commander";
import type { RecoveryReport } from "../../kernel/operations/recovery.js";
import { EXIT } from "./cli-error.js";
import { shownLines } from "./shown-lines.js";

interface RecoverFlags {
	json?: boolean;
	stateDir?: string;
}

const EMPTY: RecoveryReport = { operations: [], unreadable: [], interrupted: [], released: {}, charged: {} };

export function registerRecoverCommand(program: Command, out: (text: string) => void): void {
	program
		.command("recover")
		.description("settle what a crash left pending (runs on every write open) and print it: unknown effects, interrupted sessions")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--json", "the recovery report as one JSON object")
		.action(async (flags: RecoverFlags) => {
			const { Runtime } = await import("../../runtime/runtime.js");
			const runtime = await Runtime.open(flags.stateDir ? { stateDir: flags.stateDir } : {});
			const report = runtime.recovery ?? EMPTY;
			await runtime.close();
			out(flags.json ? `${JSON.stringify(report)}\n` : renderRecovery(report));
			process.exitCode = report.unreadable.length > 0 ? EXIT.failed : EXIT.ok;
		});
}

export function renderRecovery(r: RecoveryReport): string {
	if (r.operations.length === 0 && r.interrupted.length === 0 && r.unreadable.length === 0) return shownLines(["recovery: nothing pending"]);
	const lines: string[] = [];
	for (const op of r.operations) lines.push(`${op.state.padEnd(9)} ${op.id} ${op.kind} ${op.resource} (call ${op.call_id}, session ${op.session}): ${op.by}`);
	for (const id of r.unreadable) lines.push(`unreadable ${id}: left pending`);
	for (const id of r.interrupted) lines.push(`interrupted session ${id}`);
	const unknown = r.operations.filter((o) => o.state === "unknown").length;
	lines.push(`recovery: ${r.operations.length} operation(s) settled, ${unknown} unknown, ${r.interrupted.length} session(s) interrupted`);
	return shownLines(lines);
}
