import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runHookProcess } from "./hook-process.js";

const dir = mkdtempSync(join(tmpdir(), "warden-hook-process-"));
afterEach(() => rmSync(join(dir, "pid"), { force: true }));

/** The process's state letter, once SIGKILL has had its chance to land ("gone" when it no longer exists). */
async function settledState(pid: string): Promise<string> {
	let state = "gone";
	for (let i = 0; i < 100; i++) {
		state = existsSync(`/proc/${pid}/stat`) ? (readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2] ?? "gone") : "gone";
		if (state === "gone" || state === "Z" || state === "X") return state;
		await new Promise((r) => setTimeout(r, 20));
	}
	return state;
}

const base = { cwd: dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, stdin: "", timeoutMs: 10_000 };

describe("runHookProcess", () => {
	it("feeds stdin, captures stdout and stderr in full, and reports the exit code", async () => {
		const result = await runHookProcess({ ...base, command: `cat; head -c 300000 /dev/zero | tr '\\0' y >&2; exit 3`, stdin: '{"a":1}' });
		expect(result).toMatchObject({ exitCode: 3, stdout: '{"a":1}', timedOut: false });
		// A login's shell start-up may say something first; the hook's own output is there in full.
		expect(result.stderr.endsWith("y".repeat(300_000))).toBe(true);
	});

	it("runs in the given directory with the given environment", async () => {
		const result = await runHookProcess({ ...base, env: { ...base.env, HOOK_X: "1" }, command: "pwd; echo $HOOK_X" });
		expect(result.stdout.trim().split("\n")).toEqual([dir, "1"]);
	});

	it("kills the whole process group at the timeout", async () => {
		const pidFile = join(dir, "pid");
		const result = await runHookProcess({ ...base, timeoutMs: 2000, command: `sleep 30 & echo $! > ${pidFile}; wait` });
		expect(result).toMatchObject({ exitCode: null, timedOut: true });
		const pid = readFileSync(pidFile, "utf8").trim();
		expect(["gone", "Z", "X"]).toContain(await settledState(pid));
	});

	it("a background process the hook leaves behind does not hold the run open, and is ended with it", async () => {
		const pidFile = join(dir, "pid");
		const result = await runHookProcess({ ...base, command: `sleep 30 > /dev/null 2>&1 & echo $! > ${pidFile}; echo done` });
		expect(result).toMatchObject({ exitCode: 0, stdout: "done\n", timedOut: false });
		const pid = readFileSync(pidFile, "utf8").trim();
		expect(["gone", "Z", "X"]).toContain(await settledState(pid));
	});

	it("a hook that never reads its stdin still runs", async () => {
		const result = await runHookProcess({ ...base, command: "exit 0", stdin: "x".repeat(1_000_000) });
		expect(result.exitCode).toBe(0);
	});
});

describe("runHookProcess failures", () => {
	it("a command too long to start is a spawn error, not a throw", async () => {
		const result = await runHookProcess({ ...base, command: `echo ${"x".repeat(300_000)}` });
		expect(result).toMatchObject({ exitCode: null, timedOut: false, spawnError: expect.stringContaining("E2BIG") });
	});
});

describe("runHookProcess cancelled", () => {
	it("an aborted signal kills the group at once and reports the run cancelled", async () => {
		const pidFile = join(dir, "pid");
		const controller = new AbortController();
		const running = runHookProcess({ ...base, timeoutMs: 60_000, signal: controller.signal, command: `sleep 30 & echo $! > ${pidFile}; wait` });
		for (let i = 0; i < 500 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 10));
		controller.abort();
		const result = await running;
		expect(result).toMatchObject({ exitCode: null, timedOut: false, cancelled: true });
		expect(["gone", "Z", "X"]).toContain(await settledState(readFileSync(pidFile, "utf8").trim()));
	});
});
