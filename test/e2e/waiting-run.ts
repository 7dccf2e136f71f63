/** `warden run --on-ask console --json` in a child process, returned once its first ask is open. */
import { spawn } from "node:child_process";
import type { AnyWardenEvent } from "../../src/kernel/evidence/event-types.js";
import { BIN, CACHE_HOME, CONFIG_HOME, type Fixture, parseEvents, STATE_HOME } from "./cli-harness.js";

export interface WaitingRun {
	/** The ask the run waits on, from its ask.opened event. */
	ask: string;
	/** Resolves with the run's events once it exits. */
	done: Promise<AnyWardenEvent[]>;
	/** What the run wrote to stderr so far. */
	stderr: () => string;
}

export function startWaitingRun(fx: Fixture, task: string, plan: string, extra: readonly string[]): Promise<WaitingRun> {
	const child = spawn(process.execPath, [BIN, "run", task, "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json", "--no-project-config", ...extra, "--on-ask", "console"], {
		env: { ...process.env, WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME, WARDEN_CACHE_DIR: CACHE_HOME },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let stdout = "";
	let stderr = "";
	const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
	const done = new Promise<AnyWardenEvent[]>((resolve) => {
		child.on("close", () => {
			clearTimeout(killer);
			resolve(parseEvents(stdout));
		});
	});
	return new Promise((resolve, reject) => {
		child.stdout.on("data", (d: Buffer) => {
			stdout += d.toString();
			const line = stdout.split("\n").find((l) => l.includes('"kind":"ask.opened"'));
			if (line) resolve({ ask: (JSON.parse(line) as { payload: { ask: string } }).payload.ask, done, stderr: () => stderr });
		});
		child.stderr.on("data", (d: Buffer) => {
			stderr += d.toString();
		});
		void done.then(() => reject(new Error(`the run ended before it asked: ${stderr}`)));
	});
}
