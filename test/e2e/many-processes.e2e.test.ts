/**
 * Many Warden processes on one state dir (real CLI): runs side by side, one SIGKILLed mid-run,
 * recovery that settles only the killed one's work, one chain, and one resumer per session.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { type CliResult, type Fixture, makeFixture, type PlanStep, runCli, writePlan } from "./cli-harness.js";

/** How many processes run at once (WARDEN_E2E_PROCESSES changes it), and how many of them are SIGKILLed mid-run. */
const PROCESSES = Number(process.env.WARDEN_E2E_PROCESSES ?? 8);
const VICTIMS = PROCESSES >= 8 ? 2 : 1;
const WORKERS = PROCESSES - VICTIMS;

function startRun(fx: Fixture, steps: PlanStep[], name: string, workspace = fx.workspace, extra: string[] = []): Promise<CliResult> {
	const plan = writePlan(fx, steps, name);
	return runCli(
		["run", "e2e task", "--model", `scripted:${plan}`, "--workspace", workspace, "--state-dir", fx.stateDir, "--mode", "full-access", "--on-ask", "allow", "--json", ...extra],
		{ timeoutMs: 120_000 },
	);
}

function shell(command: string): PlanStep {
	return { tool_calls: [{ name: "shell", arguments: { command } }] };
}

function write(path: string, content: string): PlanStep {
	return { tool_calls: [{ name: "write_file", arguments: { path, content } }] };
}

async function until(what: string, ready: () => boolean): Promise<void> {
	for (let i = 0; i < 2400; i++) {
		if (ready()) return;
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
	throw new Error(`never happened: ${what}`);
}

/** Reads the state dir's database directly, read-only, as a second reader beside the CLI. */
function query<T>(fx: Fixture, sql: string, ...params: unknown[]): T[] {
	const db = new Database(join(fx.stateDir, "warden.db"), { readonly: true, fileMustExist: true });
	try {
		return db.prepare(sql).all(...params) as T[];
	} catch (error) {
		// The schema is not there yet while the first process is still creating it.
		if (/no such table/.test(String(error))) return [];
		throw error;
	} finally {
		db.close();
	}
}

function leaseOf(fx: Fixture, marker: string): { pid: number; started_at: string } | undefined {
	return query<{ pid: number; started_at: string }>(
		fx,
		"SELECT l.pid, l.started_at FROM operations o JOIN process_leases l ON o.owner = l.token WHERE o.resource LIKE ? AND o.state = 'dispatched'",
		`%${marker}%`,
	)[0];
}

/**
 * One follower snapshot (one read transaction): each settled call's records are whole (its effect
 * record and its effect.recorded event are there with it) and the chain and each session's events
 * have no gaps. Returns how many committed operations it saw.
 */
function followerSnapshot(fx: Fixture): number {
	if (!existsSync(join(fx.stateDir, "warden.db"))) return 0;
	const db = new Database(join(fx.stateDir, "warden.db"), { readonly: true, fileMustExist: true });
	try {
		return db.transaction(() => {
			const tables = db.prepare("SELECT name FROM sqlite_master WHERE name = 'process_leases'").all();
			if (tables.length === 0) return 0;
			const seqs = (db.prepare("SELECT seq FROM audit ORDER BY seq").all() as { seq: number }[]).map((r) => r.seq);
			expect(seqs).toEqual(seqs.map((_, i) => i + 1));
			for (const row of db.prepare("SELECT session, COUNT(*) AS n, MAX(seq) AS top FROM events GROUP BY session").all() as { n: number; top: number }[]) {
				expect(row.top).toBe(row.n);
			}
			const committed = db.prepare("SELECT id, session, call_id, audit_seq FROM operations WHERE state = 'committed'").all() as { id: string; session: string; call_id: string; audit_seq: number }[];
			for (const op of committed) {
				expect(db.prepare("SELECT kind, call_id FROM audit WHERE seq = ?").get(op.audit_seq)).toEqual({ kind: "effect", call_id: op.call_id });
				const events = db.prepare("SELECT json FROM events WHERE session = ? AND kind = 'effect.recorded'").all(op.session) as { json: string }[];
				expect(events.some((e) => (JSON.parse(e.json) as { payload: { audit_seq?: number } }).payload.audit_seq === op.audit_seq)).toBe(true);
			}
			return committed.length;
		}).deferred();
	} finally {
		db.close();
	}
}

async function auditRecords(fx: Fixture): Promise<{ seq: number; kind: string; session: string; call_id?: string; data: Record<string, unknown> }[]> {
	const list = await runCli(["audit", "list", "--state-dir", fx.stateDir, "--json"]);
	expect(list.code, list.stderr).toBe(0);
	return list.stdout
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line));
}

describe("many Warden processes on one state dir (end to end, real CLI)", () => {
	it(`${PROCESSES} runs at once, ${VICTIMS} SIGKILLed mid-run: the others finish, recovery settles only the killed ones' work, once`, async () => {
		const fx = makeFixture();
		const gate = join(fx.dir, "go");
		const workers = Array.from({ length: WORKERS }, (_, i) => {
			const ready = join(fx.dir, `ready-${i}`);
			return startRun(
				fx,
				[
					write(`w${i}/a.txt`, `a${i}\n`),
					shell(`echo shell-${i} > w${i}/s.txt`),
					// Holds a dispatched operation open until the test lets it go: a live process's pending work.
					shell(`touch ${ready} && while [ ! -e ${gate} ]; do sleep 0.05; done`),
					write(`w${i}/b.txt`, `b${i}\n`),
					{ text: "done" },
				],
				`worker-${i}.yaml`,
			);
		});
		// A follower reads while they all write: every snapshot it takes holds whole calls only.
		let writing = true;
		let snapshots = 0;
		const follower = (async () => {
			while (writing) {
				followerSnapshot(fx);
				snapshots++;
				await new Promise((resolve) => setTimeout(resolve, 20));
			}
		})();
		const counts = Array.from({ length: VICTIMS }, (_, j) => join(fx.dir, `victim-ran-${j}`));
		const victims = counts.map((count, j) => startRun(fx, [write(`v${j}/a.txt`, "v\n"), shell(`echo once >> ${count} && sleep 15`), { text: "never" }], `victim-${j}.yaml`));
		for (let i = 0; i < WORKERS; i++) await until(`worker ${i} is mid-call`, () => existsSync(join(fx.dir, `ready-${i}`)));
		const holders: { pid: number; started_at: string }[] = [];
		for (const [j, count] of counts.entries()) {
			// Mid-call means its effect has begun: the operation is dispatched and the command has run its first step.
			await until(`victim ${j} is mid-call`, () => leaseOf(fx, `victim-ran-${j}`) !== undefined && existsSync(count));
			holders.push(leaseOf(fx, `victim-ran-${j}`)!);
		}
		for (const holder of holders) process.kill(holder.pid, "SIGKILL");
		for (const victim of victims) expect((await victim).code).not.toBe(0);

		// A process opening now, while the workers still hold dispatched calls, settles the victims' only.
		const recovered = await runCli(["recover", "--state-dir", fx.stateDir, "--json"]);
		expect(recovered.code, recovered.stderr).toBe(0);
		const report = JSON.parse(recovered.stdout) as { operations: { resource: string; state: string }[]; interrupted: string[] };
		expect(report.operations).toHaveLength(VICTIMS);
		for (const operation of report.operations) {
			expect(operation).toMatchObject({ state: "unknown" });
			expect(operation.resource).toContain("victim-ran-");
		}
		expect(report.interrupted).toHaveLength(VICTIMS);

		writeFileSync(gate, "");
		const results = await Promise.all(workers);
		writing = false;
		await follower;
		expect(snapshots).toBeGreaterThan(1);
		expect(followerSnapshot(fx)).toBe(WORKERS * 4 + VICTIMS);
		for (const r of results) expect(r.code, r.stderr).toBe(0);
		for (let i = 0; i < WORKERS; i++) {
			expect(readFileSync(join(fx.workspace, `w${i}/b.txt`), "utf8")).toBe(`b${i}\n`);
			expect(readFileSync(join(fx.workspace, `w${i}/s.txt`), "utf8")).toBe(`shell-${i}\n`);
		}
		// Dispatched at most once: each killed call is unknown, never run again.
		for (const count of counts) expect(readFileSync(count, "utf8")).toBe("once\n");

		// A second recovery finds nothing: the victim's work was taken over once.
		const again = await runCli(["recover", "--state-dir", fx.stateDir, "--json"]);
		expect(JSON.parse(again.stdout)).toMatchObject({ operations: [], interrupted: [] });

		const verify = await runCli(["audit", "verify", "--state-dir", fx.stateDir]);
		expect(verify.code, verify.stderr).toBe(0);
		const records = await auditRecords(fx);
		const recoveredLeases = records.filter((r) => r.kind === "store.lease_recovered");
		expect(recoveredLeases).toHaveLength(VICTIMS);
		for (const holder of holders) {
			expect(recoveredLeases.find((r) => r.data.previous_pid === holder.pid)).toMatchObject({ session: "host", data: { previous_started_at: holder.started_at, why: "the process is gone" } });
		}

		// Every effect has its record: no operation is pending, and each committed one names its effect record.
		const ops = query<{ state: string; audit_seq: number | null; call_id: string }>(fx, "SELECT state, audit_seq, call_id FROM operations");
		expect(ops.filter((o) => o.state === "prepared" || o.state === "dispatched")).toEqual([]);
		expect(ops.filter((o) => o.state === "committed")).toHaveLength(WORKERS * 4 + VICTIMS);
		for (const op of ops.filter((o) => o.state === "committed")) {
			const record = records.find((r) => r.seq === op.audit_seq);
			expect(record, `operation for call ${op.call_id}`).toMatchObject({ kind: "effect", call_id: op.call_id });
		}
		const sessions = await runCli(["sessions", "list", "--state-dir", fx.stateDir, "--json"]);
		const statuses = sessions.stdout
			.trim()
			.split("\n")
			.map((line) => (JSON.parse(line) as { status: string }).status)
			.sort();
		expect(statuses).toEqual([...Array(WORKERS).fill("ok"), ...Array(VICTIMS).fill("interrupted")].sort());
		expect(query(fx, "SELECT * FROM process_leases")).toEqual([]);
	}, 180_000);

	it("a second run beside a running one is allowed, and readers work while both write", async () => {
		const fx = makeFixture();
		const gate = join(fx.dir, "go");
		const first = startRun(fx, [shell(`touch ${fx.dir}/ready && while [ ! -e ${gate} ]; do sleep 0.05; done`), { text: "done" }], "first.yaml");
		await until("the first run is mid-call", () => existsSync(join(fx.dir, "ready")));
		const second = await startRun(fx, [write("two.txt", "2\n"), { text: "done" }], "second.yaml");
		expect(second.code, second.stderr).toBe(0);
		const verify = await runCli(["audit", "verify", "--state-dir", fx.stateDir]);
		expect(verify.code, verify.stderr).toBe(0);
		expect(verify.stdout).toMatch(/^audit chain valid: \d+ records\n$/);
		writeFileSync(gate, "");
		const done = await first;
		expect(done.code, done.stderr).toBe(0);
		const records = await auditRecords(fx);
		expect(records.filter((r) => r.kind === "store.lease_recovered")).toEqual([]);
		expect(records.filter((r) => r.kind === "recovery.completed")).toEqual([]);
	}, 60_000);

	it("two processes resuming the same session: one wins, the other gets one line naming the holder", async () => {
		const fx = makeFixture();
		const started = await startRun(fx, [{ text: "first turn" }], "start.yaml");
		expect(started.code, started.stderr).toBe(0);
		const session = (JSON.parse(started.stdout.trim().split("\n")[0]!) as { session: string }).session;
		const gate = join(fx.dir, "go");
		const resume = (name: string, steps: PlanStep[]) => {
			const plan = writePlan(fx, steps, name);
			return runCli(["run", "continue", "--resume", session, "--model", `scripted:${plan}`, "--state-dir", fx.stateDir, "--mode", "full-access", "--on-ask", "allow", "--json"], { timeoutMs: 60_000 });
		};
		const winner = resume("win.yaml", [shell(`touch ${fx.dir}/ready && while [ ! -e ${gate} ]; do sleep 0.05; done`), { text: "done" }]);
		await until("the winner is mid-call", () => existsSync(join(fx.dir, "ready")));
		const holder = query<{ pid: number; started_at: string }>(fx, "SELECT l.pid, l.started_at FROM sessions s JOIN process_leases l ON s.owner = l.token WHERE s.id = ?", session)[0]!;
		const loser = await resume("lose.yaml", [{ text: "never" }]);
		expect(loser.code).not.toBe(0);
		expect(loser.stdout).toBe("");
		expect(loser.stderr.trim().split("\n")).toHaveLength(1);
		expect(loser.stderr).toContain(`session ${session} is in use by another Warden process (pid ${holder.pid} since ${holder.started_at}); wait for it to finish`);
		writeFileSync(gate, "");
		const won = await winner;
		expect(won.code, won.stderr).toBe(0);
		const verify = await runCli(["audit", "verify", "--state-dir", fx.stateDir]);
		expect(verify.code, verify.stderr).toBe(0);
	}, 60_000);
});
