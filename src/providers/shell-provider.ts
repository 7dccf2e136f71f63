/**
 * Runs one `bash -c` command as the leader of its own process group, so that a timeout or a
 * cancellation can end everything it started, not just the shell. Never hangs: every wait here
 * has a bound.
 */
import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";

export interface ShellRunOptions {
	command: string;
	cwd: string;
	env: NodeJS.ProcessEnv;
	timeoutMs: number;
	/** stdout and stderr together are captured up to this many bytes; the rest is dropped. */
	maxOutputBytes: number;
	signal?: AbortSignal;
	/**
	 * Run this program instead of `bash -c command` (a sandbox whose argument list already holds
	 * the command): the same group kill, timeout and output cap apply to it. `env` is then the
	 * wrapper's own environment.
	 */
	wrap?: { program: string; args: readonly string[] } | undefined;
	/** Each captured piece of output as it arrives, decoded (a character split across pieces waits for its rest). */
	onOutput?: ((stream: "stdout" | "stderr", text: string) => void) | undefined;
}

export interface ShellRunResult {
	exitCode: number | null;
	signal: string | null;
	stdout: string;
	stderr: string;
	truncated: boolean;
	timedOut: boolean;
	cancelled: boolean;
	durationMs: number;
}

/** Time between SIGTERM and SIGKILL of the process group. */
export const KILL_GRACE_MS = 500;
/** After the shell exits, how long its pipes may take to drain before leftovers are killed. */
const DRAIN_MS = 200;
/** After SIGKILL, how long to wait for the exit before giving up on it. */
const EXIT_WAIT_MS = 2_000;

/** bash could not be started (missing binary, bad cwd …). */
export class ShellSpawnError extends Error {
	override name = "ShellSpawnError";
}

export function runShell(opts: ShellRunOptions): Promise<ShellRunResult> {
	const started = Date.now();
	if (opts.signal?.aborted) {
		return Promise.resolve({
			exitCode: null,
			signal: null,
			stdout: "",
			stderr: "",
			truncated: false,
			timedOut: false,
			cancelled: true,
			durationMs: 0,
		});
	}

	return new Promise<ShellRunResult>((resolve, reject) => {
		const child = spawn(opts.wrap?.program ?? "bash", opts.wrap ? [...opts.wrap.args] : ["-c", opts.command], {
			cwd: opts.cwd,
			env: opts.env,
			detached: true,
			stdio: ["ignore", "pipe", "pipe"],
		});

		const stdout: Buffer[] = [];
		const stderr: Buffer[] = [];
		let captured = 0;
		let truncated = false;
		let timedOut = false;
		let cancelled = false;
		let exitCode: number | null = null;
		let exitSignal: string | null = null;
		let exited = false;
		let settled = false;
		const timers: NodeJS.Timeout[] = [];

		const onOutput = opts.onOutput;
		const capture = (into: Buffer[], stream: "stdout" | "stderr") => {
			// Only what is captured is shown live: the live view never holds more than the evidence.
			const decoder = onOutput ? new StringDecoder("utf8") : undefined;
			const show = (piece: Buffer) => {
				if (!decoder || !onOutput) return;
				const text = decoder.write(piece);
				if (text !== "") onOutput(stream, text);
			};
			return (chunk: Buffer) => {
				const room = opts.maxOutputBytes - captured;
				if (chunk.length <= room) {
					into.push(chunk);
					captured += chunk.length;
					show(chunk);
					return;
				}
				if (room > 0) {
					into.push(chunk.subarray(0, room));
					captured += room;
					show(chunk.subarray(0, room));
				}
				truncated = true;
			};
		};
		child.stdout.on("data", capture(stdout, "stdout"));
		child.stderr.on("data", capture(stderr, "stderr"));

		const killGroup = (sig: NodeJS.Signals) => {
			if (child.pid === undefined) return;
			try {
				process.kill(-child.pid, sig);
			} catch {
				// ESRCH: the group is already gone.
			}
		};

		const finish = () => {
			if (settled) return;
			settled = true;
			for (const t of timers) clearTimeout(t);
			opts.signal?.removeEventListener("abort", onAbort);
			// A process that outlived the shell (e.g. `cmd &`) would run outside any record: end it.
			killGroup("SIGKILL");
			child.stdout.destroy();
			child.stderr.destroy();
			resolve({
				exitCode,
				signal: exitSignal,
				stdout: Buffer.concat(stdout).toString("utf8"),
				stderr: Buffer.concat(stderr).toString("utf8"),
				truncated,
				timedOut,
				cancelled,
				durationMs: Date.now() - started,
			});
		};

		const terminate = () => {
			killGroup("SIGTERM");
			timers.push(
				setTimeout(() => {
					killGroup("SIGKILL");
					// A process stuck in the kernel may never report its exit; do not wait for it forever.
					timers.push(setTimeout(finish, EXIT_WAIT_MS));
				}, KILL_GRACE_MS),
			);
		};

		const onAbort = () => {
			if (exited || settled) return;
			cancelled = true;
			terminate();
		};
		opts.signal?.addEventListener("abort", onAbort, { once: true });

		timers.push(
			setTimeout(() => {
				if (exited || settled) return;
				timedOut = true;
				terminate();
			}, opts.timeoutMs),
		);

		child.on("error", (err) => {
			if (settled) return;
			settled = true;
			for (const t of timers) clearTimeout(t);
			opts.signal?.removeEventListener("abort", onAbort);
			reject(new ShellSpawnError(`could not start ${opts.wrap?.program ?? "bash"}: ${err.message}`));
		});

		child.on("exit", (code, sig) => {
			exited = true;
			exitCode = code;
			exitSignal = sig;
			// Output may still be in the pipes; a background child holding them open must not keep us here.
			timers.push(setTimeout(finish, DRAIN_MS));
		});

		child.on("close", () => {
			if (exited) finish();
		});
	});
}
