/**
 * Everyday git and the protected paths it touches, through the real CLI: `warden run` with the
 * scripted model in workspace-write, commands confined by the real bubblewrap (the default
 * provider). A new repository, its first commit and a worktree need no ask; a hook planted with
 * them never keeps its name and the shell effect record says so (the model reads the same line on stderr); moving the
 * repository's `.git` aside to rebuild it fails inside the sandbox.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/kernel/evidence/store-rows.js";
import { probeSandbox } from "../../src/providers/sandbox/sandbox-probe.js";
import { decisionsOf, expectValidTrace, makeFixture, runPlan, terminalOf } from "./cli-harness.js";

const bwrap = await probeSandbox("bwrap");
const ENV = { WARDEN_SANDBOX_PROVIDER: "bwrap" };
const IDENTITY = "-c user.email=a@example.com -c user.name=a";

async function shellRecords(stateDir: string): Promise<{ command: string; sandbox?: { provider?: string; denied?: string[] } }[]> {
	const store = openSqliteStore(stateDir);
	const records = (await store.listAudit()).filter((r) => r.kind === "effect" && r.data.effect === "shell.exec");
	await store.close();
	return records.map((r) => r.data as { command: string; sandbox?: { provider?: string; denied?: string[] } });
}

describe.skipIf(!bwrap.available)("git in the sandbox through the real CLI", () => {
	it("git init, a first commit and git worktree add run in workspace-write without an ask", async () => {
		const fx = makeFixture({ "notes.md": "notes\n" });
		const steps = [
			{ tool_calls: [{ name: "shell", arguments: { command: `git init -q . && git add notes.md && git ${IDENTITY} commit -qm first && git worktree add -q wt` } }] },
			{ text: "done" },
		];
		const run = await runPlan(fx, steps, ["--mode", "workspace-write"], { env: ENV });
		expect(run.code, run.stderr).toBe(0);
		expectValidTrace(run.events);
		expect(decisionsOf(run.events)).toEqual({ call_1_1_1: "allow" });
		expect(terminalOf(run.events, "call_1_1_1")).toBe("tool.completed");
		expect(spawnSync("git", ["log", "--format=%s"], { cwd: fx.workspace, encoding: "utf8" }).stdout).toBe("first\n");
		expect(readFileSync(join(fx.workspace, "wt", "notes.md"), "utf8")).toBe("notes\n");
		const [record] = await shellRecords(fx.stateDir);
		expect(record?.sandbox?.provider).toBe("bwrap");
		expect(record?.sandbox?.denied).toBeUndefined();
	});

	it("a hook planted with git init loses its name when the command ends, its effect record says so, and the next write meets a read-only hooks dir (approved, so the sandbox is what holds)", async () => {
		const fx = makeFixture({ "notes.md": "notes\n" });
		const steps = [
			{ tool_calls: [{ name: "shell", arguments: { command: "git init -q . && printf '#!/bin/sh\\nid\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit" } }] },
			{ tool_calls: [{ name: "shell", arguments: { command: "echo again > .git/hooks/pre-commit" } }] },
			{ text: "done" },
		];
		const run = await runPlan(fx, steps, ["--mode", "workspace-write", "--on-ask", "allow"], { env: ENV });
		expect(run.code, run.stderr).toBe(0);
		expectValidTrace(run.events);
		expect(existsSync(join(fx.workspace, ".git", "hooks", "pre-commit"))).toBe(false);
		expect(readFileSync(join(fx.workspace, ".git", "hooks", "pre-commit.warden-refused"), "utf8")).toBe("#!/bin/sh\nid\n");
		const records = await shellRecords(fx.stateDir);
		expect(records.map((r) => r.sandbox?.provider)).toEqual(["bwrap", "bwrap"]);
		expect(records[0]!.sandbox?.denied).toEqual([expect.stringContaining("put aside: .git/hooks/pre-commit (a git hook (pre-commit) git would run")]);
		expect(records[1]!.sandbox?.denied?.length).toBeGreaterThan(0);
	});

	it("moving .git aside to rebuild it with a hook fails inside the sandbox, even approved", async () => {
		const fx = makeFixture({ "notes.md": "notes\n" });
		expect(spawnSync("git", ["init", "-q", fx.workspace]).status).toBe(0);
		const steps = [
			{ tool_calls: [{ name: "shell", arguments: { command: "mv .git .git-old && git init -q . && printf '#!/bin/sh\\nid\\n' > .git/hooks/pre-commit" } }] },
			{ text: "done" },
		];
		const run = await runPlan(fx, steps, ["--mode", "workspace-write", "--on-ask", "allow"], { env: ENV });
		expect(run.code, run.stderr).toBe(0);
		// It ran (approved) and failed at the rename: nothing of it happened.
		expect(["tool.completed", "tool.failed"]).toContain(terminalOf(run.events, "call_1_1_1"));
		expect(existsSync(join(fx.workspace, ".git-old"))).toBe(false);
		expect(existsSync(join(fx.workspace, ".git", "hooks", "pre-commit"))).toBe(false);
		expect(existsSync(join(fx.workspace, ".git", "HEAD"))).toBe(true);
	});
});
