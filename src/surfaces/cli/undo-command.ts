/**
 * `warden undo <session-id|call-id>`: puts back the files a session or one call wrote or deleted, as
 * a new governed session with its own decisions, effect records and diffs. Exit 0 when every file
 * was restored (or nothing needed to be), 1 when some file was refused (each one is printed), 2 for
 * a usage error such as an unknown session or call.
 */
import type { Command } from "commander";
import type { UndoResult, UndoTarget } from "../../runtime/undo.js";
import { EXIT, UsageError } from "./cli-error.js";
import { shownLines } from "./shown-lines.js";

interface UndoFlags {
	session?: string;
	dryRun?: boolean;
	json?: boolean;
	stateDir?: string;
}

export function registerUndoCommand(program: Command, out: (text: string) => void): void {
	program
		.command("undo")
		.description("restore the files a session or call wrote or deleted, and forget the memory records it wrote, as a new governed session; a file changed since is refused")
		.argument("<id>", "a session id, or a call id (call_1_2_1) to undo that call only")
		.option("--session <id>", "the session holding the call, when several do")
		.option("--dry-run", "say what would be restored or refused; change nothing")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--json", "the result as one JSON object")
		.action(async (id: string, flags: UndoFlags) => {
			// Loaded only when this command runs, so the CLI starts without the runtime.
			const [{ userProtectedPaths }, { Runtime }, { UndoTargetError }] = await Promise.all([
				import("../../config/user-protected-paths.js"),
				import("../../runtime/runtime.js"),
				import("../../runtime/undo.js"),
			]);
			const runtime = await Runtime.open(flags.stateDir ? { stateDir: flags.stateDir } : {});
			let result: UndoResult;
			try {
				const isSession = flags.session === undefined && (await runtime.getSession(id)) !== undefined;
				const target: UndoTarget = isSession ? { session: id } : flags.session === undefined ? { call: id } : { call: id, session: flags.session };
				result = await runtime.undo(target, { dryRun: flags.dryRun === true, protectedPaths: userProtectedPaths(process.env) });
			} catch (err) {
				if (err instanceof UndoTargetError) {
					// Not a session either: say so rather than only that no call has this id.
					throw new UsageError(flags.session === undefined && err.message.startsWith("no call ") ? `no session or call ${id} in the recorded evidence` : err.message);
				}
				throw err;
			} finally {
				await runtime.close();
			}
			out(flags.json ? `${JSON.stringify(result)}\n` : shownLines(undoLines(result)));
			process.exitCode = result.refused.length > 0 ? EXIT.failed : EXIT.ok;
		});
}

/** The undo's lines as written, before the display rule (a surface that draws them applies its own). */
export function renderUndo(r: UndoResult): string {
	return `${undoLines(r).join("\n")}\n`;
}

function undoLines(r: UndoResult): string[] {
	const what = r.target.call === undefined ? `session ${r.target.session}` : `call ${r.target.call} of session ${r.target.session}`;
	const lines = [r.dry_run ? `undo of ${what} (dry run: nothing changed)` : `undo of ${what} · undo session ${r.session}`];
	for (const f of r.restored) {
		const verb = f.action === "deleted" ? (r.dry_run ? "would remove " : "removed ") : r.dry_run ? "would restore" : "restored ";
		const detail = [f.call, f.effect_seq === undefined ? undefined : `effect #${f.effect_seq}`, `before ${f.restores}`].filter((x) => x !== undefined);
		lines.push(`  ${verb} ${f.path} (${detail.join(", ")})`);
	}
	for (const m of r.forgotten) {
		const detail = [m.call, m.effect_seq === undefined ? undefined : `effect #${m.effect_seq}`, `written by ${m.written_by.call}`].filter((x) => x !== undefined);
		const back = m.restored.length > 0 ? `; ${r.dry_run ? "would mark live again" : "live again"}: ${m.restored.join(", ")}` : "";
		lines.push(`  ${r.dry_run ? "would forget" : "forgot "} memory record ${m.id} in ${m.resource} (${detail.join(", ")})${back}`);
	}
	for (const f of r.refused) lines.push(`  refused  ${f.reason}`);
	for (const path of r.unchanged) lines.push(`  unchanged ${path} (already as before)`);
	const verb = r.dry_run ? "would restore" : "restored";
	const memory = r.forgotten.length > 0 ? `, ${r.dry_run ? "would forget" : "forgot"} ${r.forgotten.length} memory record(s)` : "";
	lines.push(`${verb} ${r.restored.length} file(s)${memory}, refused ${r.refused.length}${r.unchanged.length ? `, ${r.unchanged.length} already as before` : ""}`);
	return lines;
}
