/**
 * Runs one hook command: `bash -c <command>` in its own process group, the event written to its
 * stdin, stdout and stderr captured in full. At the timeout the whole group is killed (a hook's
 * `sleep &` child included), so no hook outlives its deadline or the record of its run.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

export interface HookProcessOptions {
	command: string;
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** Written to the process's stdin, which is then closed. */
	stdin: string;
	timeoutMs: number;
	/** Aborting kills the group at once (the turn was cancelled); the run reports `cancelled`. */
	signal?: AbortSignal;
}

export interface HookProcessResult {
	/** Null when killed (at the timeout) or never started. */
	exitCode: number | null;
	signal: string | null;
	stdout: string;
	stderr: string;
	timedOut: boolean;
	cancelled?: boolean;
	/** Set when bash could not be started at all. */
	spawnError?: string;
	durationMs: number;
}

/** How long to wait for the exit report after SIGKILL before giving up on it. */
const EXIT_WAIT_MS = 2_000;

export function runHookProcess(opts: HookProcessOptions): Promise<HookProcessResult> {
	const started = Date.now();
	return new Promise((resolve) => {
		let child: ChildProcessWithoutNullStreams;
		try {
			child = spawn("bash", ["-c", opts.command], { cwd: opts.cwd, env: opts.env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
		} catch (err) {
			// Some failures (E2BIG) are thrown at once rather than reported as an `error` event.
			resolve({ exitCode: null, signal: null, stdout: "", stderr: "", timedOut: false, spawnError: (err as Error).message, durationMs: Date.now() - started });
			return;
		}
		const stdout: Buffer[] = [];
		const stderr: Buffer[] = [];
		let timedOut = false;
		let cancelled = false;
		let settled = false;
		let spawnError: string | undefined;
		const timers: NodeJS.Timeout[] = [];
		const killGroup = () => {
			if (child.pid === undefined) return;
			try {
				process.kill(-child.pid, "SIGKILL");
			} catch {
				// ESRCH: the group is already gone.
			}
		};
		const finish = (exitCode: number | null, signal: string | null) => {
			if (settled) return;
			settled = true;
			for (const t of timers) clearTimeout(t);
			opts.signal?.removeEventListener("abort", onAbort);
			// A process the hook left behind in its group would run unrecorded: end it with the hook.
			killGroup();
			child.stdout.destroy();
			child.stderr.destroy();
			resolve({
				exitCode,
				signal,
				stdout: Buffer.concat(stdout).toString("utf8"),
				stderr: Buffer.concat(stderr).toString("utf8"),
				timedOut,
				...(cancelled ? { cancelled } : {}),
				...(spawnError !== undefined ? { spawnError } : {}),
				durationMs: Date.now() - started,
			});
		};
		child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
		child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
		child.on("error", (err) => {
			spawnError = err.message;
			finish(null, null);
		});
		// The exit of bash is what counts; whatever it left holding the pipes is killed, and what they
		// wrote is still read to the end before the run is reported.
		let exit: { code: number | null; signal: string | null } | undefined;
		child.on("exit", (code, signal) => {
			exit = { code: timedOut || cancelled ? null : code, signal };
			killGroup();
			timers.push(setTimeout(() => finish(exit!.code, exit!.signal), EXIT_WAIT_MS));
		});
		child.on("close", (code, signal) => finish(exit?.code ?? (timedOut || cancelled ? null : code), exit?.signal ?? signal));
		const onAbort = () => {
			cancelled = true;
			killGroup();
			timers.push(setTimeout(() => finish(null, "SIGKILL"), EXIT_WAIT_MS));
		};
		if (opts.signal?.aborted) onAbort();
		else opts.signal?.addEventListener("abort", onAbort, { once: true });
		// A hook that does not read its stdin must not fail the write.
		child.stdin.on("error", () => undefined);
		child.stdin.end(opts.stdin);
		timers.push(
			setTimeout(() => {
				timedOut = true;
				killGroup();
				timers.push(setTimeout(() => finish(null, "SIGKILL"), EXIT_WAIT_MS));
			}, opts.timeoutMs),
		);
	});
}
