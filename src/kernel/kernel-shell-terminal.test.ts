/**
 * An editor's terminals under the shell primitive: only a bubblewrap-confined command is handed
 * over, as the wrapper (the command and its environment sealed inside it), and the terminal
 * really runs it (here: a local spawn standing in for the editor's, with variables of its own);
 * Landlock-confined and unconfined commands stay in Warden's own shell provider.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { EditorTerminalRun, EditorTerminals } from "../providers/editor-terminal-provider.js";
import type { SandboxProviderName } from "../providers/sandbox/sandbox-profile.js";
import { probeSandbox } from "../providers/sandbox/sandbox-probe.js";
import type { EffectRecord } from "./effects.js";
import { createKernel } from "./kernel.js";
import type { ShellSandboxOptions } from "./kernel-shell.js";

const base = realpathSync(mkdtempSync("/var/tmp/warden-term-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const home = process.env.HOME ?? homedir();
const bwrap = await probeSandbox("bwrap");
const landlock = await probeSandbox("landlock");

/** A terminal that runs what it is given with an editor's environment on top, as a client may. */
function editorTerminal(): EditorTerminals & { runs: EditorTerminalRun[] } {
	const runs: EditorTerminalRun[] = [];
	return {
		name: "test-editor",
		runs,
		run(req) {
			runs.push(req);
			return new Promise((resolve) => {
				const child = spawn(req.program, [...req.args], { cwd: req.cwd, env: { ...req.env, EDITOR_SECRET: "from-the-editor" } });
				let out = "";
				child.stdout.on("data", (d: Buffer) => {
					out += d.toString();
				});
				child.stderr.on("data", (d: Buffer) => {
					out += d.toString();
				});
				child.on("close", (code, signal) => resolve({ exitCode: code, signal, stdout: out, stderr: "", truncated: false, timedOut: false, cancelled: false, durationMs: 1 }));
			});
		},
	};
}

function run(sandbox: ShellSandboxOptions, terminals: EditorTerminals, workspace: string) {
	const effects: EffectRecord[] = [];
	const kernel = createKernel({
		workspace,
		callId: "call-t",
		signal: new AbortController().signal,
		recordEffect: async (e) => {
			effects.push(e);
		},
		env: { PATH: process.env.PATH, HOME: home },
		sandbox,
		terminals,
	});
	return { effects, exec: (command: string) => kernel.shell.exec(command, { timeoutMs: 10_000, maxOutputBytes: 100_000 }) };
}

const workspaceFor = (name: string) => {
	const ws = join(base, name);
	mkdirSync(ws);
	return ws;
};

describe("shell.exec with an editor's terminals", () => {
	it.skipIf(!bwrap.available)("hands a bubblewrap-confined command to the terminal as the wrapper; the editor's variables do not reach it and the profile holds", async () => {
		const ws = workspaceFor("bwrap");
		const terminal = editorTerminal();
		const { effects, exec } = run({ profile: "workspace-write", available: true, home, provider: "bwrap" }, terminal, ws);
		const out = await exec('echo "[$EDITOR_SECRET]" > seen.txt && cat seen.txt && touch /var/tmp/warden-term-escape-$$ ; echo end');
		expect(terminal.runs).toHaveLength(1);
		expect(terminal.runs[0]!.program).toMatch(/bwrap$/);
		expect(terminal.runs[0]!.args).toContain("--clearenv");
		expect(out.stdout).toContain("[]\n");
		expect(out.stdout).toContain("end");
		expect(existsSync(join(ws, "seen.txt"))).toBe(true);
		expect(readdirSync("/var/tmp").some((n) => n.startsWith("warden-term-escape-"))).toBe(false);
		expect(effects[0]!.data.sandbox).toMatchObject({ provider: "bwrap", terminal: "test-editor" });
	});

	const others: [string, ShellSandboxOptions, boolean][] = [
		["unconfined (full-access)", { profile: "none", available: true, home }, true],
		["confined by Landlock", { profile: "workspace-write", available: true, home, provider: "landlock" as SandboxProviderName }, landlock.available],
	];
	for (const [what, sandbox, can] of others) {
		it.skipIf(!can)(`runs a command ${what} in Warden's own shell provider`, async () => {
			const ws = workspaceFor(what.replace(/\W/g, ""));
			const terminal = editorTerminal();
			const { effects, exec } = run(sandbox, terminal, ws);
			const out = await exec("echo own");
			expect(out.stdout).toBe("own\n");
			expect(terminal.runs).toEqual([]);
			expect((effects[0]!.data.sandbox as Record<string, unknown>).terminal).toBeUndefined();
		});
	}
});
