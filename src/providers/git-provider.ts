/**
 * Reads a local git repository's objects, for the flow plane to see what a push or a bundle would
 * send. Read-only plumbing only (rev-list, cat-file): no hook, filter or fsmonitor runs for them,
 * and the user's and system's config are not read. This module does no policy.
 */
import { execFile } from "node:child_process";

export interface GitReadResult {
	ok: boolean;
	stdout: Buffer;
	/** Why it failed (git's message, or the limit it ran into). */
	error?: string;
}

const GIT_ENV: NodeJS.ProcessEnv = {
	PATH: "/usr/local/bin:/usr/bin:/bin",
	GIT_CONFIG_NOSYSTEM: "1",
	GIT_CONFIG_GLOBAL: "/dev/null",
	GIT_TERMINAL_PROMPT: "0",
	GIT_OPTIONAL_LOCKS: "0",
	LC_ALL: "C",
};

/** Runs `git <args>` in `cwd` with a time and output bound; never throws. */
export function readGit(cwd: string, args: readonly string[], opts: { timeoutMs: number; maxBytes: number }): Promise<GitReadResult> {
	return new Promise((resolve) => {
		execFile(
			"git",
			["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", ...args],
			{ cwd, env: GIT_ENV, timeout: opts.timeoutMs, maxBuffer: opts.maxBytes, encoding: "buffer", windowsHide: true },
			(err, stdout, stderr) => {
				if (err) resolve({ ok: false, stdout: Buffer.alloc(0), error: (stderr.toString("utf8").trim() || err.message).split("\n")[0]! });
				else resolve({ ok: true, stdout });
			},
		);
	});
}
