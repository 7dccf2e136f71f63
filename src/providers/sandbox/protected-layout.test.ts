import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expandRoots, nestedRepositories, protectedLayout } from "./protected-layout.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "warden-layout-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function workspace(name: string): string {
	const ws = join(base, name);
	mkdirSync(ws, { recursive: true });
	return ws;
}

const ROOTS = [
	{ path: ".git/hooks", directory: true },
	{ path: ".git/config", directory: false },
	{ path: ".warden", directory: true },
	{ path: ".envrc", directory: false },
	{ path: ".vscode/tasks.json", directory: false },
];

describe("protectedLayout", () => {
	it("keeps what exists and names the first missing component of what does not", () => {
		const ws = workspace("some");
		mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
		mkdirSync(join(ws, ".vscode"));
		const layout = protectedLayout(ws, ROOTS);
		expect(layout.existing).toEqual([join(ws, ".git/hooks")]);
		expect(layout.absent).toEqual([
			{ path: join(ws, ".git/config"), directory: false },
			{ path: join(ws, ".warden"), directory: true },
			{ path: join(ws, ".envrc"), directory: false },
			{ path: join(ws, ".vscode/tasks.json"), directory: false },
		]);
	});

	it("makes .git the absent name when there is no repository, a writable one so that git init works", () => {
		const ws = workspace("bare");
		const layout = protectedLayout(ws, ROOTS);
		// .git/hooks and .git/config both stop at .git: one directory stand-in covers both, checked after the command.
		expect(layout.absent.filter((a) => a.path.includes(".git"))).toEqual([{ path: join(ws, ".git"), directory: true, writable: true }]);
		expect(layout.absent.filter((a) => a.writable).map((a) => a.path)).toEqual([join(ws, ".git")]);
		expect(layout.absent.map((a) => a.path)).toContain(join(ws, ".vscode"));
	});

	it("keeps a .git file (a worktree's pointer) itself read-only", () => {
		const ws = workspace("worktree");
		writeFileSync(join(ws, ".git"), "gitdir: /elsewhere\n");
		expect(protectedLayout(ws, ROOTS).existing).toEqual([join(ws, ".git")]);
	});

	it("follows a link only to a target inside the workspace", () => {
		const ws = workspace("links");
		writeFileSync(join(ws, "envrc.real"), "");
		symlinkSync(join(ws, "envrc.real"), join(ws, ".envrc"));
		symlinkSync("/etc", join(ws, ".warden"));
		const layout = protectedLayout(ws, ROOTS);
		expect(layout.existing).toContain(join(ws, "envrc.real"));
		expect(layout.existing).not.toContain("/etc");
	});

	it("adds Warden's own dirs when they exist inside the workspace", () => {
		const ws = workspace("state");
		mkdirSync(join(ws, "state"));
		expect(protectedLayout(ws, [], [join(ws, "state"), join(ws, "missing"), "/etc"]).existing).toEqual([join(ws, "state")]);
	});
});

describe("nested repositories", () => {
	it("finds .git entries below the top, skipping dependency folders, and applies the .git roots to each", () => {
		const ws = workspace("nested");
		mkdirSync(join(ws, "libs", "a", ".git", "hooks"), { recursive: true });
		writeFileSync(join(ws, "sub.git-file"), "");
		mkdirSync(join(ws, "sub"));
		writeFileSync(join(ws, "sub", ".git"), "gitdir: ../.git/modules/sub\n");
		mkdirSync(join(ws, "node_modules", "x", ".git"), { recursive: true });
		expect(nestedRepositories(ws).sort()).toEqual(["libs/a", "sub"]);
		const paths = expandRoots(ws, ROOTS).map((r) => r.path);
		expect(paths).toEqual(expect.arrayContaining(["libs/a/.git/hooks", "libs/a/.git/config", "sub/.git/hooks"]));
		expect(paths).not.toContain("libs/a/.warden");
		const layout = protectedLayout(ws, ROOTS);
		expect(layout.existing).toEqual(expect.arrayContaining([join(ws, "libs/a/.git/hooks"), join(ws, "sub/.git")]));
	});
});
