/**
 * Asks any surface can answer (real CLI): `warden run --on-ask console` in one process waits on its
 * ask as a durable row; `warden asks answer` from another process answers it, exactly once; a run
 * killed while waiting leaves its ask expired and unanswerable; a timeout refuses the call.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../src/kernel/evidence/event-types.js";
import { BIN, CACHE_HOME, CONFIG_HOME, type Fixture, STATE_HOME, expectValidTrace, makeFixture, parseEvents, runCli, writePlan } from "./cli-harness.js";

const ORIGINAL = "remember the milk\n";
const CHANGED = "remember the bread\n";

interface WaitingRun {
	child: ChildProcess;
	/** The ask the run waits on, from its ask.opened event. */
	ask: string;
	/** Resolves when the run exits: its exit code (null when killed) and its events. */
	done: Promise<{ code: number | null; signal: NodeJS.Signals | null; events: AnyWardenEvent[]; stderr: string }>;
}

/** Starts `warden run --on-ask console --json` on a plan that writes notes.md, and returns once its ask is open. */
async function startWaitingRun(fx: Fixture, extra: string[] = []): Promise<WaitingRun> {
	const plan = writePlan(fx, [{ tool_calls: [{ name: "write_file", arguments: { path: "notes.md", content: CHANGED } }] }, { text: "done" }]);
	const child = spawn(
		process.execPath,
		[BIN, "run", "change the note", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json", "--no-project-config", "--ask", "write_file(notes.md)", "--on-ask", "console", ...extra],
		{
			env: { ...process.env, WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME, WARDEN_CACHE_DIR: CACHE_HOME },
			stdio: ["ignore", "pipe", "pipe"],
		},
	);
	let stdout = "";
	let stderr = "";
	let opened: ((id: string) => void) | undefined;
	const ask = new Promise<string>((resolve) => {
		opened = resolve;
	});
	child.stdout?.on("data", (d: Buffer) => {
		stdout += d.toString();
		const line = stdout.split("\n").find((l) => l.includes('"kind":"ask.opened"'));
		if (line) opened?.((JSON.parse(line) as { payload: { ask: string } }).payload.ask);
	});
	child.stderr?.on("data", (d: Buffer) => {
		stderr += d.toString();
	});
	const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
	const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; events: AnyWardenEvent[]; stderr: string }>((resolve) => {
		child.on("close", (code, signal) => {
			clearTimeout(killer);
			resolve({ code, signal, events: parseEvents(stdout.split("\n").filter((l) => l.endsWith("}")).join("\n")), stderr });
		});
	});
	const id = await Promise.race([ask, done.then((r) => Promise.reject(new Error(`the run ended before it asked: ${r.stderr}`)))]);
	return { child, ask: id, done };
}

function auditOf(fx: Fixture, kind: string): { call_id: string | null; data: Record<string, unknown> }[] {
	const db = new Database(join(fx.stateDir, "warden.db"), { readonly: true, fileMustExist: true });
	try {
		return (db.prepare("SELECT call_id, data FROM audit WHERE kind = ? ORDER BY seq").all(kind) as { call_id: string | null; data: string }[]).map((r) => ({ call_id: r.call_id, data: JSON.parse(r.data) }));
	} finally {
		db.close();
	}
}

const answer = (fx: Fixture, id: string, what: string) => runCli(["asks", "answer", id, what, "--state-dir", fx.stateDir]);

describe("asks any surface can answer (end to end, real CLI)", () => {
	it("a run waiting for the console is approved from another process: the write happens once, answered by cli; a second answer is refused", async () => {
		const fx = makeFixture({ "notes.md": ORIGINAL });
		const run = await startWaitingRun(fx);
		const listed = await runCli(["asks", "list", "--json", "--state-dir", fx.stateDir]);
		expect(listed.code, listed.stderr).toBe(0);
		const [pending] = JSON.parse(listed.stdout) as { id: string; tool: string; resource: string; diff?: string; always_rule?: string; kind: string }[];
		expect(pending).toMatchObject({ id: run.ask, kind: "approval", tool: "write_file", resource: "notes.md", always_rule: "write_file(notes.md)" });
		expect(pending?.diff).toContain("+remember the bread");
		const text = await runCli(["asks", "list", "--state-dir", fx.stateDir]);
		expect(text.stdout).toContain(`${run.ask}  approval write_file notes.md`);

		const approved = await answer(fx, run.ask, "allow_once");
		expect(approved.code, approved.stderr).toBe(0);
		expect(approved.stdout).toBe(`answered ${run.ask}: allow_once (by cli)\n`);
		const result = await run.done;
		expect(result.code, result.stderr).toBe(0);
		expectValidTrace(result.events);
		expect(readFileSync(join(fx.workspace, "notes.md"), "utf8")).toBe(CHANGED);
		expect(result.events.find((e) => e.kind === "ask.answered")?.payload).toMatchObject({ ask: run.ask, answer: "allow_once", answered_by: "cli" });
		expect(result.events.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ approved: true, response: "allow_once" });
		expect(auditOf(fx, "ask.answered")).toMatchObject([{ data: { ask: run.ask, answer: "allow_once", answered_by: "cli", tool: "write_file", resource: "notes.md" } }]);

		const again = await answer(fx, run.ask, "deny");
		expect(again.code).toBe(1);
		expect(again.stderr).toBe(`warden: ask ${run.ask} was already answered (allow_once by cli)\n`);
		expect((await runCli(["audit", "verify", "--state-dir", fx.stateDir])).code).toBe(0);
	}, 120_000);

	it("a deny from another process refuses the call: the file stays as it was", async () => {
		const fx = makeFixture({ "notes.md": ORIGINAL });
		const run = await startWaitingRun(fx);
		expect((await answer(fx, run.ask, "deny")).code).toBe(0);
		const result = await run.done;
		expectValidTrace(result.events);
		expect(readFileSync(join(fx.workspace, "notes.md"), "utf8")).toBe(ORIGINAL);
		expect(result.events.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ approved: false, response: "deny" });
		expect(result.events.find((e) => e.kind === "tool.cancelled")).toBeDefined();
		expect(auditOf(fx, "ask.answered")).toMatchObject([{ data: { answer: "deny", answered_by: "cli" } }]);
	}, 120_000);

	it("a run killed while it waits leaves its ask expired: it is no longer listed, and answering it fails and releases nothing", async () => {
		const fx = makeFixture({ "notes.md": ORIGINAL });
		const run = await startWaitingRun(fx);
		run.child.kill("SIGKILL");
		expect((await run.done).signal).toBe("SIGKILL");
		expect(JSON.parse((await runCli(["asks", "list", "--json", "--state-dir", fx.stateDir])).stdout)).toEqual([]);
		const late = await answer(fx, run.ask, "allow_once");
		expect(late.code).toBe(1);
		expect(late.stderr).toMatch(new RegExp(`^warden: ask ${run.ask} has expired \\(the process that asked is gone \\(the process is gone\\)\\); nothing was released\\n$`));
		expect(readFileSync(join(fx.workspace, "notes.md"), "utf8")).toBe(ORIGINAL);
		// Recovery (the next session host's open) finds nothing to expire twice, and the chain holds.
		expect((await runCli(["recover", "--state-dir", fx.stateDir])).code).toBe(0);
		expect((await answer(fx, run.ask, "allow_once")).stderr).toContain("has expired");
		expect((await runCli(["audit", "verify", "--state-dir", fx.stateDir])).code).toBe(0);
	}, 120_000);

	it("with nobody answering, the ask expires at --ask-timeout and the call is refused with one line", async () => {
		const fx = makeFixture({ "notes.md": ORIGINAL });
		const run = await startWaitingRun(fx, ["--ask-timeout", "1"]);
		const result = await run.done;
		expectValidTrace(result.events);
		expect(readFileSync(join(fx.workspace, "notes.md"), "utf8")).toBe(ORIGINAL);
		expect(result.events.find((e) => e.kind === "ask.expired")?.payload).toMatchObject({ ask: run.ask, why: "no answer within 1 s" });
		expect(result.events.find((e) => e.kind === "tool.cancelled")?.payload).toMatchObject({ reason: "not approved (no answer within 1 s)" });
		expect((await answer(fx, run.ask, "allow_once")).stderr).toBe(`warden: ask ${run.ask} has expired (no answer within 1 s); nothing was released\n`);
	}, 120_000);

	it("refuses a bad answer and a bad timeout in one line", async () => {
		const fx = makeFixture();
		const bad = await runCli(["asks", "answer", "ask_x", "sure", "--state-dir", fx.stateDir]);
		expect(bad.code).toBe(2);
		expect(bad.stderr).toBe('warden: the answer must be allow_once, allow_always, deny, deny_always, accept, decline, cancel, got "sure"\n');
		const unknown = await answer(fx, "ask_x", "deny");
		expect(unknown.stderr).toBe("warden: unknown ask ask_x\n");
		const timeout = await runCli(["run", "x", "--model", "scripted:/nonexistent.yaml", "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--on-ask", "console", "--ask-timeout", "soon"]);
		expect(timeout.code).toBe(2);
		expect(timeout.stderr).toBe('warden: --ask-timeout must be a positive number of seconds, got "soon"\n');
	}, 60_000);
});
