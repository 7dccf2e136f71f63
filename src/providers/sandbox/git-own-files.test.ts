import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isGitDirConfig, notGitsOwn, safePartOfGitConfig, unsafeGitConfig } from "./git-own-files.js";

const ws = realpathSync(mkdtempSync(join(tmpdir(), "warden-git-own-")));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

function put(rel: string, text: string): void {
	mkdirSync(dirname(join(ws, rel)), { recursive: true });
	writeFileSync(join(ws, rel), text);
}

const INIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";

describe("unsafeGitConfig", () => {
	it("accepts what git init, clone and submodule write, and identity", () => {
		expect(unsafeGitConfig(INIT_CONFIG)).toBeUndefined();
		const clone = `${INIT_CONFIG}[remote "origin"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n[user]\n\tname = A\n\temail = a@example.com\n`;
		expect(unsafeGitConfig(clone)).toBeUndefined();
		expect(unsafeGitConfig("[core]\n\tworktree = ../../../lib\n[submodule \"lib\"]\n\tactive = true\n")).toBeUndefined();
	});

	it.each([
		["[core]\n\tfsmonitor = touch pwned\n", "core.fsmonitor"],
		["[core]\n\thooksPath = /tmp/h\n", "core.hookspath"],
		["[include]\n\tpath = ../evil\n", "include.path"],
		['[includeIf "gitdir:/"]\n\tpath = ../evil\n', "includeif"],
		['[filter "x"]\n\tclean = sh -c evil\n', "filter"],
		["[alias]\n\tst = !sh -c evil\n", "alias.st"],
		['[remote "origin"]\n\tuploadpack = sh -c evil\n', "remote.origin.uploadpack"],
		["[core] fsmonitor = evil\n", "do not write"],
		["[core]\n\tbare = false \\\n\tfsmonitor = evil\n", "continued"],
		["fsmonitor = evil\n", "do not write"],
	])("refuses %j", (text, why) => {
		expect(unsafeGitConfig(text)?.toLowerCase()).toContain(why.toLowerCase());
	});

	it("keeps the safe entries of a refused config under their sections, and nothing of one it cannot read", () => {
		expect(safePartOfGitConfig(`${INIT_CONFIG}\tfsmonitor = evil\n[alias]\n\tst = !evil\n[user]\n\tname = A\n`)).toBe(`${INIT_CONFIG.replace(/\n$/, "")}\n[user]\n\tname = A\n`);
		expect(safePartOfGitConfig("[core]\n\tbare = false \\\n")).toBeUndefined();
	});
});

describe("notGitsOwn", () => {
	it("accepts a new repository's git dir, its hooks folder and git's sample hooks", () => {
		put("r/.git/hooks/pre-commit.sample", "#!/bin/sh\n");
		expect(notGitsOwn(ws, "r/.git", "dir")).toBeUndefined();
		expect(notGitsOwn(ws, "r/.git/hooks", "dir")).toBeUndefined();
		expect(notGitsOwn(ws, "r/.git/hooks/pre-commit.sample", "file")).toBeUndefined();
		expect(notGitsOwn(ws, ".git/modules/lib/hooks/post-checkout.sample", "file")).toBeUndefined();
	});

	it("refuses a hook git would run, a link, a nested hook and anything outside a git dir", () => {
		expect(notGitsOwn(ws, "r/.git/hooks/pre-commit", "file")).toContain("hook");
		expect(notGitsOwn(ws, "r/.git/hooks/x/pre-commit.sample", "file")).toBeDefined();
		expect(notGitsOwn(ws, "r/.git/hooks/pre-commit.sample", "link")).toContain("link");
		expect(notGitsOwn(ws, "sub/.envrc", "file")).toBeDefined();
		expect(notGitsOwn(ws, "sub/.warden", "dir")).toBeDefined();
	});

	it("checks a new config by its keys", () => {
		put("a/.git/config", INIT_CONFIG);
		put("b/.git/config", `${INIT_CONFIG}\tfsmonitor = evil\n`);
		put(".git/modules/lib/config", "[core]\n\tworktree = ../../../lib\n");
		expect(notGitsOwn(ws, "a/.git/config", "file")).toBeUndefined();
		expect(notGitsOwn(ws, "b/.git/config", "file")).toContain("fsmonitor");
		expect(notGitsOwn(ws, ".git/modules/lib/config", "file")).toBeUndefined();
		expect(isGitDirConfig(".git/worktrees/x/config")).toBe(false);
		expect(notGitsOwn(ws, ".git/worktrees/x/config", "file")).toBeDefined();
	});

	it("accepts a worktree's pointers as git worktree add writes them, and only those", () => {
		put("wt/.git", `gitdir: ${ws}/.git/worktrees/wt\n`);
		mkdirSync(join(ws, ".git/worktrees/wt"), { recursive: true });
		put(".git/worktrees/wt/gitdir", `${ws}/wt/.git\n`);
		put(".git/worktrees/wt/commondir", "../..\n");
		expect(notGitsOwn(ws, "wt/.git", "file")).toBeUndefined();
		expect(notGitsOwn(ws, ".git/worktrees/wt/gitdir", "file")).toBeUndefined();
		expect(notGitsOwn(ws, ".git/worktrees/wt/commondir", "file")).toBeUndefined();
		put(".git/worktrees/bad/commondir", "../../../evil\n");
		put(".git/worktrees/bad/gitdir", "/etc/.git\n");
		expect(notGitsOwn(ws, ".git/worktrees/bad/commondir", "file")).toContain("commondir");
		expect(notGitsOwn(ws, ".git/worktrees/bad/gitdir", "file")).toContain("outside");
	});

	it("refuses a .git file that points anywhere but a worktree's or submodule's git dir in the workspace", () => {
		mkdirSync(join(ws, "shadow"), { recursive: true });
		put("p1/.git", "gitdir: ../shadow\n");
		put("p2/.git", "gitdir: /etc\n");
		put("p3/.git", "not a pointer\n");
		symlinkSync(join(ws, ".git/worktrees/wt"), join(ws, "linked-gitdir"));
		put("p4/.git", "gitdir: ../linked-gitdir\n");
		for (const rel of ["p1/.git", "p2/.git", "p3/.git"]) expect(notGitsOwn(ws, rel, "file"), rel).toBeDefined();
		// A link is resolved first: where it leads is what counts.
		expect(notGitsOwn(ws, "p4/.git", "file")).toBeUndefined();
	});

	it("refuses git control files git's own commands never make", () => {
		for (const rel of [".git/commondir", "x/.git/info/attributes", ".git/objects/info/alternates", ".git/config.worktree", ".git/worktrees/wt/config.worktree"]) {
			expect(notGitsOwn(ws, rel, "file"), rel).toBeDefined();
		}
	});
});
