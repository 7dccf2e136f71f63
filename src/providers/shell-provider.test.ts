import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runShell, ShellSpawnError, type ShellRunOptions } from "./shell-provider.js";

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(path.join(tmpdir(), "warden-sh-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (command: string, extra: Partial<ShellRunOptions> = {}) =>
	runShell({ command, cwd: dir, env: { PATH: process.env.PATH }, timeoutMs: 10_000, maxOutputBytes: 100_000, ...extra });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("runShell", () => {
	it("captures stdout, stderr and the exit code, in the given cwd", async () => {
		const out = await run("pwd; echo oops >&2; exit 3");
		expect(out).toMatchObject({ exitCode: 3, signal: null, stdout: `${dir}\n`, stderr: "oops\n", timedOut: false, cancelled: false });
	});

	it("hands each captured piece to onOutput as it arrives, a character split across pieces kept whole", async () => {
		const seen: [string, string][] = [];
		// é is two bytes; the first goes out alone, the second with the next write.
		const out = await run("printf '\\303'; sleep 0.1; printf '\\251\\n'; echo err >&2", { onOutput: (stream, text) => seen.push([stream, text]) });
		expect(out.stdout).toBe("é\n");
		expect(seen.filter(([s]) => s === "stdout").map(([, t]) => t).join("")).toBe("é\n");
		expect(seen).toContainEqual(["stderr", "err\n"]);
	});

	it("shows live no more than it captures", async () => {
		let shown = "";
		const out = await run("head -c 3000 /dev/zero | tr '\\0' a", { maxOutputBytes: 1000, onOutput: (_, text) => (shown += text) });
		expect(out.truncated).toBe(true);
		expect(shown).toBe(out.stdout);
	});

	it("closes stdin so a reader sees end of input at once", async () => {
		const out = await run("cat; echo done");
		expect(out.stdout).toBe("done\n");
	});

	it("caps stdout and stderr together and marks the drop", async () => {
		const out = await run("head -c 3000 /dev/zero | tr '\\0' a; head -c 3000 /dev/zero | tr '\\0' b >&2", { maxOutputBytes: 4000 });
		expect(out.truncated).toBe(true);
		expect(out.stdout.length + out.stderr.length).toBe(4000);
		expect(out.exitCode).toBe(0);
	});

	it("kills the whole process group at the timeout, background children included", async () => {
		const marker = path.join(dir, "marker");
		const started = Date.now();
		const out = await run(`(sleep 1.5; touch ${marker}) & sleep 100 & sleep 100`, { timeoutMs: 300 });
		expect(Date.now() - started).toBeLessThan(3_000);
		expect(out.timedOut).toBe(true);
		expect(out.exitCode).toBeNull();
		expect(out.signal).toBe("SIGTERM");
		await sleep(2_000);
		expect(existsSync(marker)).toBe(false);
	});

	it("does not wait on a background child that keeps stdout open after the shell exits", async () => {
		const started = Date.now();
		const out = await run("sleep 30 & echo started", { timeoutMs: 20_000 });
		expect(Date.now() - started).toBeLessThan(2_000);
		expect(out).toMatchObject({ exitCode: 0, stdout: "started\n", timedOut: false });
	});

	it("runs a wrapper's program and arguments instead of bash -c, under the same timeout and cap", async () => {
		const wrap = { program: "bash", args: ["-c", "echo wrapped; head -c 5000 /dev/zero | tr '\\0' w; sleep 100"] };
		const out = await run("never run as written", { wrap, timeoutMs: 300, maxOutputBytes: 100 });
		expect(out.stdout.startsWith("wrapped\n")).toBe(true);
		expect(out).toMatchObject({ truncated: true, timedOut: true });
		expect(out.stdout.length).toBe(100);
	});

	it("escalates to SIGKILL when the command ignores SIGTERM", async () => {
		const started = Date.now();
		const out = await run("trap '' TERM; while true; do sleep 0.05; done", { timeoutMs: 200 });
		expect(out.timedOut).toBe(true);
		expect(out.signal).toBe("SIGKILL");
		expect(Date.now() - started).toBeLessThan(3_000);
	});

	it("kills the process group when the signal aborts, and refuses to start when already aborted", async () => {
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 200);
		const out = await run("sleep 100", { signal: controller.signal });
		expect(out).toMatchObject({ cancelled: true, timedOut: false, exitCode: null });
		expect(out.durationMs).toBeLessThan(3_000);

		const pre = await run(`touch ${path.join(dir, "never")}`, { signal: AbortSignal.abort() });
		expect(pre.cancelled).toBe(true);
		expect(existsSync(path.join(dir, "never"))).toBe(false);
	});

	it("passes only the given environment", async () => {
		const out = await run('echo "[$HOME][$ONLY]"', { env: { PATH: process.env.PATH, ONLY: "yes" } });
		expect(out.stdout).toBe("[][yes]\n");
	});

	it("rejects with a one-line error when bash cannot start", async () => {
		await expect(run("true", { cwd: path.join(dir, "missing") })).rejects.toBeInstanceOf(ShellSpawnError);
	});
});
