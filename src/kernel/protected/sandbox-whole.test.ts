/**
 * The property the registry promises the shell: for every default rule, under every sandbox that
 * works here, a confined command that tries every way to change a protected path — write it,
 * rename it, rename each directory on the way to it and rebuild the path, hard-link it in or out,
 * put a link in its place — changes nothing about it. Real bubblewrap and real Landlock, one
 * command per rule instance and state; the instances are a generated table over the registry
 * (the top, a nested folder, a nested repository, a submodule's and a worktree's git dir).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prepareSandbox } from "../../providers/sandbox/prepare-sandbox.js";
import type { SandboxProviderName } from "../../providers/sandbox/sandbox-profile.js";
import { probeSandbox } from "../../providers/sandbox/sandbox-probe.js";
import { DEFAULT_PROTECTED_PATHS, defaultProtectedPaths } from "./protected-paths.js";
import { sandboxProtectedMatch, sandboxProtectedRoots } from "./sandbox-roots.js";

const registry = defaultProtectedPaths();

/** Concrete paths for each rule: `**` spelled at the top and nested, `*` as one name. */
const INSTANCES: Record<string, readonly string[]> = {
	"**/.warden": [".warden", "sub/.warden"],
	"**/.warden/**": [".warden/config.yaml", "sub/deep/.warden/config.yaml"],
	"**/.agents/skills": [".agents/skills"],
	"**/.agents/skills/**": [".agents/skills/deploy/SKILL.md", "sub/.agents/skills/x/SKILL.md"],
	"**/.git": ["wt/.git", "sub/new/.git"],
	"**/.git/hooks": [".git/hooks"],
	"**/.git/hooks/**": [".git/hooks/pre-commit", "lib/.git/hooks/pre-commit"],
	"**/.git/config": [".git/config", "lib/.git/config"],
	"**/.git/config.worktree": [".git/config.worktree"],
	"**/.git/worktrees/*/config.worktree": [".git/worktrees/feature/config.worktree"],
	"**/.git/worktrees/*/config": [".git/worktrees/feature/config"],
	"**/.git/worktrees/*/hooks/**": [".git/worktrees/feature/hooks/pre-commit"],
	"**/.git/worktrees/*/commondir": [".git/worktrees/feature/commondir"],
	"**/.git/worktrees/*/gitdir": [".git/worktrees/feature/gitdir"],
	"**/.git/commondir": [".git/commondir", "lib/.git/commondir"],
	"**/.git/info/attributes": [".git/info/attributes", "lib/.git/info/attributes"],
	"**/.git/objects/info/alternates": [".git/objects/info/alternates"],
	"**/.git/modules/**/hooks/**": [".git/modules/vendor/hooks/post-checkout"],
	"**/.git/modules/**/config": [".git/modules/vendor/config"],
	"**/.git/modules/**/config.worktree": [".git/modules/vendor/config.worktree"],
	"**/.git/modules/**/commondir": [".git/modules/vendor/commondir"],
	"**/.git/modules/**/info/attributes": [".git/modules/vendor/info/attributes"],
	"**/.git/modules/**/objects/info/alternates": [".git/modules/vendor/objects/info/alternates"],
	"**/.envrc": [".envrc", "sub/deep/.envrc"],
	".husky/**": [".husky/pre-commit"],
	".pre-commit-config.yaml": [".pre-commit-config.yaml"],
	".vscode/tasks.json": [".vscode/tasks.json"],
	".vscode/settings.json": [".vscode/settings.json"],
	".devcontainer/**": [".devcontainer/devcontainer.json"],
	".devcontainer.json": [".devcontainer.json"],
	".mcp.json": [".mcp.json"],
	".claude/settings.json": [".claude/settings.json"],
	".claude/settings.local.json": [".claude/settings.local.json"],
	".gemini/settings.json": [".gemini/settings.json"],
	".cursor/mcp.json": [".cursor/mcp.json"],
};

/** Paths the instances are made in but that are protected as directories: made as directories. */
const DIRECTORY_INSTANCES = new Set([".warden", "sub/.warden", ".agents/skills", ".git/hooks"]);

const base = realpathSync(mkdtempSync("/var/tmp/warden-whole-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** A git dir with what git needs to call it one, made by hand so every protected file in it is the test's own. */
function gitDir(path: string): void {
	for (const d of ["objects/info", "refs/heads", "info"]) mkdirSync(join(path, d), { recursive: true });
	writeFileSync(join(path, "HEAD"), "ref: refs/heads/main\n");
}

/** A workspace with every instance present (`existing`) or only the directories around them (`absent`). */
function fixture(name: string, state: "existing" | "absent"): string {
	const ws = join(base, name);
	mkdirSync(join(ws, "work"), { recursive: true });
	writeFileSync(join(ws, "work", "bait"), "bait\n");
	gitDir(join(ws, ".git"));
	gitDir(join(ws, "lib", ".git"));
	gitDir(join(ws, ".git", "modules", "vendor"));
	mkdirSync(join(ws, ".git", "worktrees", "feature"), { recursive: true });
	mkdirSync(join(ws, "wt"));
	mkdirSync(join(ws, "sub", "deep"), { recursive: true });
	if (state === "absent") return ws;
	for (const path of Object.values(INSTANCES).flat()) {
		const abs = join(ws, path);
		if (DIRECTORY_INSTANCES.has(path)) mkdirSync(abs, { recursive: true });
		else if (path === "sub/new/.git") gitDir(abs);
		else {
			mkdirSync(dirname(abs), { recursive: true });
			writeFileSync(abs, path === "wt/.git" ? `gitdir: ${join(ws, ".git/worktrees/feature")}\n` : "original\n");
		}
	}
	return ws;
}

/** Type, inode and content of a path: what "changes nothing" compares. */
function describePath(abs: string): string {
	try {
		const st = lstatSync(abs);
		if (st.isSymbolicLink()) return `link:${st.ino}:${readlinkSync(abs)}`;
		if (st.isDirectory()) return `dir:${st.ino}`;
		return `file:${st.ino}:${createHash("sha256").update(readFileSync(abs)).digest("hex")}`;
	} catch {
		return "missing";
	}
}

/** The path and each directory between it and the workspace. */
function withAncestors(path: string): string[] {
	const out = [path];
	for (let d = dirname(path); d !== "."; d = dirname(d)) out.push(d);
	return out;
}

/** One shell script that tries each way in turn; every step may fail, none stops the next. */
function attack(path: string): string {
	const p = q(path);
	const parent = q(dirname(path));
	const steps = [`printf evil > ${p}`, `printf evil >> ${p}`, `mv ${p} ${q(`${path}.moved`)}`, `mkdir -p ${parent} && printf evil > ${p}`];
	// Renamed in place (a move into another mount would be a copy): the aside name, then the path rebuilt.
	for (const a of withAncestors(path).slice(1)) steps.push(`mv ${q(a)} ${q(`${a}.aside`)} && mkdir -p ${parent} && printf evil > ${p}`);
	steps.push(`ln -f work/bait ${p}`, `ln ${p} work/hl-$RANDOM && printf evil >> work/hl-*`, `ln -sfn "$PWD/work/bait" ${p}`, `rm -rf ${p}`);
	return steps.map((s) => `( ${s} ) 2>/dev/null`).join("; ");
}

const ROWS = Object.entries(INSTANCES).flatMap(([pattern, paths]) => paths.map((path) => ({ pattern, path })));
const PROVIDERS: SandboxProviderName[] = ["bwrap", "landlock"];
const probes = await Promise.all(PROVIDERS.map((p) => probeSandbox(p)));

describe("the instance table", () => {
	it("has instances for every default rule, and each instance is what its rule covers", () => {
		expect(Object.keys(INSTANCES).sort()).toEqual(DEFAULT_PROTECTED_PATHS.map((d) => d.pattern).sort());
		for (const { path } of ROWS) expect(registry.covers(path), path).toBe(true);
	});
});

describe.each(PROVIDERS.map((provider, i) => ({ provider, probe: probes[i]! })))("every protected path held whole: $provider", ({ provider, probe }) => {
	const run = async (ws: string, command: string) => {
		if (!probe.available) throw new Error("unreachable");
		const profile = { name: "workspace-write" as const, workspace: ws, network: false, protectedRoots: sandboxProtectedRoots(registry), protectedMatch: sandboxProtectedMatch(registry) };
		const prepared = await prepareSandbox({ provider: probe.provider, program: probe.program }, profile, command, { PATH: "/usr/bin:/bin" });
		try {
			spawnSync(prepared.program, prepared.args, { env: prepared.env, cwd: ws, timeout: 10_000 });
		} finally {
			await prepared.cleanup();
		}
	};

	it.skipIf(!probe.available)("an existing protected path, and every directory on the way to it, stay as they were", async () => {
		const ws = fixture(`existing-${provider}`, "existing");
		for (const { path } of ROWS) {
			const watched = withAncestors(path);
			const before = watched.map((p) => describePath(join(ws, p)));
			await run(ws, attack(path));
			expect(
				watched.map((p) => describePath(join(ws, p))),
				`${path} under ${provider}`,
			).toEqual(before);
		}
	});

	it.skipIf(!probe.available)("an absent protected path is still absent after every try to make it", async () => {
		const ws = fixture(`absent-${provider}`, "absent");
		for (const { path } of ROWS) {
			await run(ws, attack(path));
			expect(describePath(join(ws, path)), `${path} under ${provider}`).toBe("missing");
		}
	});
});
