/** `warden audit list|verify` and `warden sessions list|show`: reading the evidence. */
import type { Command } from "commander";
import type { Runtime } from "../../runtime/runtime.js";
import { EXIT, UsageError } from "./cli-error.js";
import { shownEvent } from "./render-event.js";
import { renderPlan, sessionPlan } from "./session-plan.js";
import { clipped, shownLines } from "./shown-lines.js";

interface CommonFlags {
	stateDir?: string;
	json?: boolean;
}

async function withRuntime<T>(flags: CommonFlags, body: (runtime: Runtime) => Promise<T>): Promise<T> {
	// Loaded here, not at start: `warden --version` and `--help` never load the runtime.
	const { Runtime } = await import("../../runtime/runtime.js");
	// Every command here only reads, so none waits for or blocks a running `warden run`.
	const runtime = await Runtime.open(flags.stateDir ? { stateDir: flags.stateDir, readOnly: true } : { readOnly: true });
	try {
		return await body(runtime);
	} finally {
		await runtime.close();
	}
}

function positiveInt(value: string, flag: string): number {
	const n = Number(value);
	if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer, got "${value}"`);
	return n;
}

export function registerEvidenceCommands(program: Command, out: (text: string) => void): void {
	const audit = program.command("audit").description("read and verify the append-only audit chain");
	audit
		.command("verify")
		.description("recompute the hash chain; exit 1 and name the first bad record if it was edited, deleted or reordered")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--json", "print the result as JSON")
		.action(async (flags: CommonFlags) => {
			// The store alone, not a Runtime: what `audit verify` costs is the walk, not the start.
			const { verifyStateDirAudit } = await import("../../runtime/verify-audit.js");
			const result = await verifyStateDirAudit(flags.stateDir ? { stateDir: flags.stateDir } : {});
			if (flags.json) out(`${JSON.stringify(result)}\n`);
			else if (result.ok) out(shownLines([`audit chain valid: ${result.checked} records`]));
			else out(shownLines([`audit chain BROKEN at record ${result.firstBad.seq}: ${result.firstBad.reason}`]));
			process.exitCode = result.ok ? EXIT.ok : EXIT.failed;
		});
	audit
		.command("list")
		.description("print audit records in chain order")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--session <id>", "only this session's records")
		.option("--limit <n>", "at most this many records")
		.option("--json", "one record per line as JSON")
		.action(async (flags: CommonFlags & { session?: string; limit?: string }) => {
			const filter: { session?: string; limit?: number } = {};
			if (flags.session) filter.session = flags.session;
			if (flags.limit) filter.limit = positiveInt(flags.limit, "--limit");
			const records = await withRuntime(flags, (rt) => rt.listAudit(filter));
			for (const r of records) {
				if (flags.json) out(`${JSON.stringify(r)}\n`);
				else out(shownLines([`#${r.seq} ${r.time} ${r.session.slice(0, 8)} t${r.turn} ${r.kind}${r.call_id ? ` ${r.call_id}` : ""} ${clipped(JSON.stringify(r.data), 200)}`]));
			}
		});

	const sessions = program.command("sessions").description("list and inspect recorded sessions");
	sessions
		.command("list")
		.description("recorded sessions, newest first")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--json", "one session per line as JSON")
		.action(async (flags: CommonFlags) => {
			const rows = await withRuntime(flags, (rt) => rt.listSessions());
			for (const s of rows) {
				if (flags.json) out(`${JSON.stringify(s)}\n`);
				else out(shownLines([`${s.id}  ${s.created_at}  ${s.status.padEnd(6)}  turns ${s.turns}  ${s.mode}  ${s.model}  ${s.workspace}`]));
			}
			if (!flags.json && rows.length === 0) out(shownLines(["no sessions recorded"]));
		});
	sessions
		.command("show")
		.description("a session's details and its events")
		.argument("<id>", "session id (or a unique prefix)")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--json", "the session and its events as one JSON object")
		.action(async (id: string, flags: CommonFlags) => {
			await withRuntime(flags, async (rt) => {
				const row = (await rt.getSession(id)) ?? (await findByPrefix(rt, id));
				const events = await rt.sessionEvents(row.id);
				if (flags.json) {
					out(`${JSON.stringify({ session: row, events })}\n`);
					return;
				}
				const head = [`session ${row.id}`, `  status ${row.status} · turns ${row.turns} · created ${row.created_at}${row.ended_at ? ` · ended ${row.ended_at}` : ""}`];
				// Lineage: the session that spawned this one (a sub-agent), and the sub-agents this one spawned.
				if (row.parent_session) head.push(`  parent ${row.parent_session} (call ${row.parent_call ?? "?"})`);
				for (const child of (await rt.listSessions()).filter((s) => s.parent_session === row.id).reverse()) {
					head.push(`  child ${child.id} (call ${child.parent_call ?? "?"}) · ${child.status} · ${child.mode}`);
				}
				out(shownLines(head));
				const plan = sessionPlan(events);
				if (plan !== undefined) out(renderPlan(plan));
				for (const event of events) {
					const line = shownEvent(event);
					if (line !== undefined && event.kind !== "session.started") out(`${line}\n`);
				}
			});
		});
}

async function findByPrefix(rt: Runtime, prefix: string) {
	const matches = (await rt.listSessions()).filter((s) => s.id.startsWith(prefix));
	if (matches.length === 1) return matches[0]!;
	if (matches.length === 0) throw new UsageError(`no session ${prefix}`);
	throw new UsageError(`session prefix ${prefix} is ambiguous (${matches.length} sessions)`);
}
