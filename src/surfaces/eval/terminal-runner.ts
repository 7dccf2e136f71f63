/**
 * The full runner for a `surfaces` task (`terminal:`): the plan runs through the real CLI in a
 * pseudo-terminal (@lydell/node-pty, a dev dependency) on the task's surface, the interactive
 * screen (`warden`), `warden --plain` or `warden run --on-ask prompt`, each ask answered with the
 * task's on_ask. Every byte the terminal was sent is kept; what a person saw is read back by
 * replaying those bytes into a headless terminal (terminal-screen.ts), at each ask and at the end.
 * Terminal effects are judged from that; any other effect from the world before and after the run.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { observeCall } from "./observed-call.js";
import { join } from "node:path";
import { stringify } from "yaml";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { checkTraceInvariant } from "../../kernel/evidence/trace-invariant.js";
import { Runtime } from "../../runtime/runtime.js";
import { loadPty, PtyScreen } from "../bench/pty-screen.js";
import { WARDEN_BIN } from "./crash-harness.js";
import { judgeEffect } from "./effect-oracle.js";
import { resolveEffect } from "./effect-resolution.js";
import type { TaskDirs } from "./fixture.js";
import { scriptedSteps } from "./full-runner.js";
import type { SinkServer } from "./sink-server.js";
import { type CallRecord, callIdFor, type TaskRun } from "./task-run.js";
import { type EvalTask, isTerminalEffect } from "./task-types.js";
import { judgeTerminalEffect } from "./terminal-oracle.js";
import { replayTerminal, seenAfter } from "./terminal-screen.js";
import { snapshotWorld } from "./world-snapshot.js";

const COLS = 200;
const ROWS = 50;
/** The whole run, asks included, ends within this. */
const RUN_TIMEOUT_MS = 60_000;
/** The scripted model's last words, so the runner knows the turn is over without reading the screen's layout. */
const TURN_OVER = "eval-terminal-turn-over";

/** The keys line of an armed ask on the screen; the prompt the line-oriented surfaces print once per ask. */
const SCREEN_KEYS = /\[n\/Esc\] (deny|keep it|no)/;
const LINE_ASK = /answer> /g;

function policyArgs(task: EvalTask, dir: string): string[] {
	const args = [...task.rules.allow.flatMap((r) => ["--allow", r]), ...task.rules.ask.flatMap((r) => ["--ask", r]), ...task.runDeny.flatMap((r) => ["--deny", r])];
	if (task.rules.deny.length > 0) {
		// Host deny rules go through a rules file: `--deny` on the command line is the run-level deny.
		const file = join(dir, "rules.yaml");
		writeFileSync(file, stringify({ deny: task.rules.deny }));
		args.push("--rules", file);
	}
	return args;
}

function wait(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function runTerminalTask(task: EvalTask, dirs: TaskDirs, _sink: SinkServer): Promise<TaskRun> {
	const surface = task.terminal?.surface;
	if (surface === undefined) throw new Error(`task ${task.id} has no terminal: it is not a surfaces task`);
	const run: TaskRun = { task, runner: "full", calls: [], problems: [], failures: [], prompts: 0, releases: 0 };
	const modules = await loadPty();
	if (!modules) {
		run.problems.push("the surfaces tasks need the dev dependencies @lydell/node-pty and @xterm/headless");
		return run;
	}
	const scratch = join(dirs.root, "terminal");
	mkdirSync(join(scratch, "config"), { recursive: true });
	const steps = scriptedSteps(task.plan, dirs);
	// A step of text alone ends the turn: the marker joins the last one, or follows the last calls.
	const last = steps[steps.length - 1];
	if (last !== undefined && last.tool_calls === undefined) last.text = `${last.text ?? ""}\n${TURN_OVER}`;
	else steps.push({ text: TURN_OVER });
	const plan = join(scratch, "plan.yaml");
	writeFileSync(plan, stringify({ steps }));
	const input = task.description === "" ? `Evaluation task ${task.id}` : task.description;
	const common = ["--model", `scripted:${plan}`, "--workspace", dirs.workspace, "--state-dir", dirs.state, "--mode", task.mode, "--no-project-config", ...policyArgs(task, scratch)];
	const env = { ...task.fixture.env, HOME: dirs.home, WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: join(scratch, "config"), XDG_STATE_HOME: join(scratch, "state-home") };
	let file = process.execPath;
	let args: string[];
	if (surface === "prompt") {
		// The run's events (standard output) go to a file: the terminal holds what the asker wrote to it.
		const script = join(scratch, "run.sh");
		writeFileSync(script, `exec "$@" > ${JSON.stringify(join(scratch, "run.out"))}\n`);
		file = "/bin/sh";
		args = [script, process.execPath, WARDEN_BIN, "run", input, "--on-ask", "prompt", ...common];
	} else {
		args = [WARDEN_BIN, ...(surface === "plain" ? ["--plain"] : []), ...common];
	}

	const roots = [dirs.workspace, dirs.home, dirs.outside];
	const before = await snapshotWorld(roots);
	const screen = new PtyScreen(modules, file, args, { cols: COLS, rows: ROWS, env, cwd: dirs.workspace });
	const shown: string[] = [];
	const answer = task.onAsk === "allow" ? "y" : "n";
	let exitCode: number | undefined;
	void screen.exited.then((code) => {
		exitCode = code;
	});
	try {
		const deadline = Date.now() + RUN_TIMEOUT_MS;
		if (surface === "screen") await screen.waitFor(() => screen.visible().some((row) => row === "›"), RUN_TIMEOUT_MS);
		if (surface === "plain") await screen.waitFor(/^> /m, RUN_TIMEOUT_MS);
		if (surface !== "prompt") screen.write(`${input}\r`);
		// The screen redraws an ask's panel many times: an ask is new when its keys line appears again after it went.
		// The line-oriented surfaces print one `answer> ` per ask.
		let answered = 0;
		let askOpen = false;
		while (Date.now() < deadline && exitCode === undefined) {
			if (screen.text().includes(TURN_OVER) && (surface !== "screen" || screen.visible().some((row) => row === "›"))) break;
			const keysShown = surface === "screen" && SCREEN_KEYS.test(screen.visible().join("\n"));
			const asked = surface === "screen" ? keysShown && !askOpen : (screen.raw.match(LINE_ASK) ?? []).length > answered;
			if (asked) {
				// What the person sees as they are asked: the bytes so far, drawn by a terminal.
				shown.push(await seenAfter(screen.raw, COLS, ROWS));
				run.prompts++;
				answered++;
				askOpen = true;
				screen.write(surface === "plain" ? `${answer}\r` : answer);
			} else if (askOpen && !keysShown) {
				askOpen = false;
			}
			await wait(50);
		}
		if (exitCode === undefined && Date.now() >= deadline) run.problems.push(`the ${surface} run did not finish within ${RUN_TIMEOUT_MS / 1000} s`);
		if (surface === "screen") screen.write("\u0004");
		if (surface === "plain") screen.write("/exit\r");
		await Promise.race([screen.exited, wait(10_000)]);
		if (exitCode === undefined) run.problems.push(`the ${surface} run did not exit`);
		else if (exitCode !== 0) run.problems.push(`the ${surface} run exited ${exitCode}`);
	} finally {
		screen.kill();
	}
	const after = await snapshotWorld(roots);
	const seen = await replayTerminal(screen.raw, shown, COLS, ROWS);
	if ("error" in seen) {
		run.problems.push(seen.error);
		return run;
	}

	const events = await sessionEvents(dirs);
	for (const violation of checkTraceInvariant(events).violations) run.failures.push(`trace invariant: ${violation}`);
	for (const [s, step] of task.plan.entries()) {
		for (const [c, call] of step.calls.entries()) {
			const callId = callIdFor(s + 1, c + 1);
			const seenCall = observeCall(events, callId);
			const record: CallRecord = {
				callId,
				step: s + 1,
				tool: call.name,
				expect: call.expect,
				effect: call.effect,
				judgement: { undecidable: "not observed" },
				decision: seenCall.decision ?? null,
				outcome: seenCall.outcome ?? null,
				audited: null,
			};
			run.calls.push(record);
			const effect = await resolveEffect(call.effect, dirs, task.id, "full");
			if ("error" in effect) record.judgement = { undecidable: effect.error };
			else if (isTerminalEffect(effect)) record.judgement = judgeTerminalEffect(effect, seen);
			else record.judgement = judgeEffect(effect, { before, after, sink: [], toolResult: undefined });
		}
	}
	return run;
}

/** The events of the run's session (the first one the state dir holds), read once the CLI has exited. */
async function sessionEvents(dirs: TaskDirs): Promise<AnyWardenEvent[]> {
	const runtime = await Runtime.open({ stateDir: dirs.state, env: { HOME: dirs.home } });
	try {
		const sessions = await runtime.listSessions();
		const first = sessions[sessions.length - 1];
		return first ? await runtime.sessionEvents(first.id) : [];
	} finally {
		await runtime.close();
	}
}
