/**
 * `warden replay export <session> <file>` writes a session as a replay file; `warden replay <file>`
 * re-runs it and says whether every decision and effect matched. Exit 0 on a full match, 1 on a
 * mismatch or a tampered file, 2 for a usage error.
 */
import { readFile, writeFile } from "node:fs/promises";
import type { Command } from "commander";
import type { ReplayReport } from "../../runtime/replay/replay.js";
import { EXIT, UsageError } from "./cli-error.js";
import { shownLines } from "./shown-lines.js";

interface ReplayFlags {
	workspace?: string;
	stateDir?: string;
	json?: boolean;
	keep?: boolean;
}

/** Mismatches printed before "… and N more" (all of them are in --json). */
const SHOWN = 10;

export function registerReplayCommand(program: Command, out: (text: string) => void): void {
	const command = program
		.command("replay")
		.description(
			"re-run a replay file with its recorded model responses against a copy of the starting workspace, and report whether every decision and effect matched. Tools run for real in the copy: shell commands are executed again there (that is what makes it a regression test); the original workspace is never changed",
		)
		.argument("<file>", "a replay file written by `warden replay export`")
		.option("--workspace <dir>", "directory to start from, copied (default: the workspace the session recorded; the session's own changes are taken back in the copy)")
		.option("--keep", "keep the workspace copy and the replay's state dir, and print where they are")
		.option("--state-dir <dir>", "record the replayed session in this state directory, kept (default $WARDEN_HOME; without either, a temporary one)")
		.option("--json", "the report as one JSON object")
		.action(async (file: string, flags: ReplayFlags) => {
			let text: string;
			try {
				text = await readFile(file, "utf8");
			} catch (err) {
				throw new UsageError(`cannot read replay file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
			}
			// Loaded only when this command runs, so the CLI starts without the runtime.
			const [{ nodeReplayDisk, ReplaySourceError }, { replay }, { ReplayError }, { resolveStateDir }] = await Promise.all([
				import("../../providers/replay-disk.js"),
				import("../../runtime/replay/replay.js"),
				import("../../runtime/replay/replay-format.js"),
				import("../../store/state-dir.js"),
			]);
			let report: ReplayReport;
			try {
				const stateDir = explicitStateDir(flags.stateDir, process.env, resolveStateDir);
				report = await replay(text, {
					disk: nodeReplayDisk,
					env: process.env,
					...(flags.workspace ? { workspace: flags.workspace } : {}),
					...(flags.keep ? { keep: true } : {}),
					...(stateDir ? { stateDir } : {}),
				});
			} catch (err) {
				if (err instanceof ReplaySourceError) throw new UsageError(err.message);
				if (!(err instanceof ReplayError)) throw err;
				process.stderr.write(shownLines([`warden: ${err.message}`]));
				process.exitCode = EXIT.failed;
				return;
			}
			out(flags.json ? `${JSON.stringify(report)}\n` : renderReport(report));
			process.exitCode = report.match ? EXIT.ok : EXIT.failed;
		});

	command
		.command("export")
		.description("write a session's recorded evidence as an append-only, hash-chained JSONL replay file (schema version 1, redacted)")
		.argument("<session>", "the session id (see `warden sessions list`)")
		.argument("<file>", "where to write the replay file")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.action(async (session: string, file: string, _flags: unknown, self: Command) => {
			// `replay` has a --state-dir of its own, which Commander fills wherever the flag is written.
			const flags = self.optsWithGlobals<{ stateDir?: string }>();
			const [{ Runtime }, { replayText }, { ReplayError }] = await Promise.all([
				import("../../runtime/runtime.js"),
				import("../../runtime/replay/replay-chain.js"),
				import("../../runtime/replay/replay-format.js"),
			]);
			// Exporting only reads: it must work while another process runs sessions on the same state dir.
			const runtime = await Runtime.open({ ...(flags.stateDir ? { stateDir: flags.stateDir } : {}), readOnly: true });
			let lines: string[];
			try {
				lines = await runtime.exportReplay(session);
			} catch (err) {
				if (err instanceof ReplayError) throw new UsageError(err.message);
				throw err;
			} finally {
				await runtime.close();
			}
			// wx: a replay file is append-only evidence; an existing one is never overwritten.
			try {
				await writeFile(file, replayText(lines), { flag: "wx" });
			} catch (err) {
				if ((err as NodeJS.ErrnoException).code === "EEXIST") throw new UsageError(`${file} already exists; a replay file is never overwritten`);
				throw err;
			}
			out(shownLines([`replay: session ${session} → ${file} (${lines.length} lines)`]));
			process.exitCode = EXIT.ok;
		});
}

/** The state dir the user named (flag, else WARDEN_HOME); a replay records in no default one of its own. */
function explicitStateDir(flag: string | undefined, env: NodeJS.ProcessEnv, resolveStateDir: (dir: string, env: NodeJS.ProcessEnv) => string): string | undefined {
	const named = [flag, env.WARDEN_HOME].find((v) => v !== undefined && v.trim() !== "");
	return named === undefined ? undefined : resolveStateDir(named, env);
}

export function renderReport(r: ReplayReport): string {
	const lines: string[] = [];
	for (const t of r.turns) lines.push(`turn ${t.turn}: ${t.status}${t.error ? ` (${t.error})` : ""}`);
	for (const note of r.notes) lines.push(`start: ${note}`);
	if (r.workspace_copy) lines.push(`kept: workspace copy ${r.workspace_copy}, state dir ${r.state_dir}`);
	else if (r.state_dir) lines.push(`recorded: session ${r.replay_session} in ${r.state_dir}`);
	if (r.match) lines.push(`match: ${r.decisions} decision(s) and ${r.effects} effect(s) of session ${r.session} replayed the same`);
	else {
		lines.push(`MISMATCH: ${r.mismatches.length} difference(s) replaying session ${r.session}`);
		for (const m of r.mismatches.slice(0, SHOWN)) {
			const where = [m.line === undefined ? undefined : `line ${m.line}`, m.call].filter((x) => x !== undefined).join(" ");
			const detail = m.recorded !== undefined && m.replayed !== undefined ? `: recorded ${JSON.stringify(m.recorded)}, replayed ${JSON.stringify(m.replayed)}` : "";
			lines.push(`  - ${where ? `${where}: ` : ""}${m.what}${detail}`);
		}
		if (r.mismatches.length > SHOWN) lines.push(`  … and ${r.mismatches.length - SHOWN} more (--json shows all)`);
	}
	return shownLines(lines);
}
