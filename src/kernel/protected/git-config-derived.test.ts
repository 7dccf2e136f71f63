import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_INCLUDE_DEPTH, repositoryConfigRules } from "./git-config-derived.js";
import { ProtectedPaths } from "./protected-paths.js";
import { withRepositoryConfig } from "./derived-registry.js";

let ws: string;
let home: string;

const put = (rel: string, text: string, base = ws) => {
	mkdirSync(dirname(join(base, rel)), { recursive: true });
	writeFileSync(join(base, rel), text);
};
const rules = (repositories: string[] = [""]) => repositoryConfigRules({ workspace: ws, home, repositories });
const patterns = (repositories?: string[]) => rules(repositories).map((r) => r.pattern);

beforeEach(() => {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "warden-gitcfg-")));
	ws = join(root, "ws");
	home = join(root, "home");
	mkdirSync(ws);
	mkdirSync(home);
	put(".git/HEAD", "ref: refs/heads/main\n");
});
afterEach(() => rmSync(dirname(ws), { recursive: true, force: true }));

describe("repositoryConfigRules", () => {
	it("derives nothing from a config that names no program in the workspace", () => {
		put(".git/config", "[core]\n\tbare = false\n\tfsmonitor = true\n\tpager = less -R\n[alias]\n\tst = status\n");
		expect(rules()).toEqual([]);
	});

	it("protects a relative core.hooksPath as a whole, relative to the worktree top, saying why", () => {
		put(".git/config", "[core]\n\thooksPath = .githooks\n");
		const found = rules();
		expect(found.map((r) => r.pattern)).toEqual([".githooks", ".githooks/**"]);
		expect(found[0]?.reason).toMatch(/^named by core\.hookspath in \.git\/config: git runs the hooks/);
		expect(found[0]?.source).toBe("repository config .git/config");
		const registry = new ProtectedPaths().with(found);
		expect(registry.match(".githooks/pre-commit")?.rule.reason).toMatch(/core\.hookspath/);
		expect(registry.covers("src/main.ts")).toBe(false);
	});

	it("resolves an absolute hooksPath and ~/ and ignores what lies outside the workspace", () => {
		put(".git/config", `[core]\n\thooksPath = ${join(ws, "tools/hooks")}\n[core]\n\thooksPath = ~/hooks\n[core]\n\thooksPath = ../outside\n`);
		expect(patterns()).toEqual(["tools/hooks", "tools/hooks/**"]);
	});

	it("reads the user's own config too: a relative hooksPath there names a folder in the worktree", () => {
		put(".gitconfig", "[core]\n\thooksPath = .hooks\n", home);
		const found = rules();
		expect(found.map((r) => r.pattern)).toEqual([".hooks", ".hooks/**"]);
		expect(found[0]?.reason).toContain(`in ${join(home, ".gitconfig")}`);
	});

	it("follows include.path relative to the including file, and protects the included file and what it names", () => {
		put(".git/config", "[include]\n\tpath = ../config/git.inc\n");
		put("config/git.inc", "[include]\n\tpath = second.inc\n");
		put("config/second.inc", "[core]\n\tfsmonitor = ./scripts/monitor.sh\n");
		const found = rules();
		expect(found.map((r) => r.pattern)).toEqual(["config/git.inc", "config/second.inc", "scripts/monitor.sh"]);
		expect(found[2]?.reason).toMatch(/^named by core\.fsmonitor in config\/second\.inc/);
	});

	it("protects an included file that does not exist yet: creating it would hand git a config", () => {
		put(".git/config", "[include]\n\tpath = ../local.gitconfig\n");
		expect(patterns()).toEqual(["local.gitconfig"]);
	});

	it("follows includeIf whatever its condition", () => {
		put(".git/config", '[includeIf "gitdir:/never/here/"]\n\tpath = ../a.inc\n[includeIf "onbranch:nope"]\n\tpath = ../b.inc\n');
		put("a.inc", "[core]\n\tsshCommand = ./bin/ssh\n");
		expect(patterns()).toEqual(["a.inc", "bin/ssh", "b.inc"]);
	});

	it("stops at an include cycle", () => {
		put(".git/config", "[include]\n\tpath = ../a.inc\n");
		put("a.inc", "[include]\n\tpath = b.inc\n");
		put("b.inc", "[include]\n\tpath = a.inc\n");
		expect(patterns()).toEqual(["a.inc", "b.inc"]);
	});

	it("protects every path an exec key's command names: a script run by an interpreter too", () => {
		put(".git/config", "[core]\n\tfsmonitor = sh scripts/fsmon.sh --root=./tools/root\n[alias]\n\tz = !node ./bin/z.js && echo ok\n");
		expect(patterns()).toEqual(["scripts/fsmon.sh", "tools/root", "bin/z.js"]);
	});

	it("protects the paths of exec keys, after a ! too, quoted or not, and not a bare program name", () => {
		put(
			".git/config",
			'[alias]\n\tx = "!./scripts/x.sh --all"\n\ty = !git status\n[filter "f"]\n\tclean = tools/clean %f\n[diff]\n\texternal = \'./d t/diff\' a\n[credential]\n\thelper = !~/bin/cred\n[protocol]\n\tallow = ./never\n',
		);
		expect(patterns()).toEqual(["scripts/x.sh", "tools/clean", "d t/diff"]);
	});

	it("reads config an alias hands git with -c", () => {
		put(".git/config", "[alias]\n\tci = -c core.hooksPath=.h commit\n\tst = -c core.fsmonitor=./mon status\n");
		const found = rules();
		expect(found.map((r) => r.pattern)).toEqual([".h", ".h/**", "mon"]);
		expect(found[0]?.reason).toMatch(/^named by core\.hooksPath in alias\.ci in \.git\/config/);
	});

	it("reads a nested repository through its gitdir pointer and commondir, relative to its own top", () => {
		put("lib/.git", "gitdir: ../.git/modules/lib\n");
		put(".git/modules/lib/HEAD", "ref: refs/heads/main\n");
		put(".git/modules/lib/config", "[core]\n\thooksPath = hooks-here\n");
		put("wt/.git", "gitdir: ../.git/worktrees/wt\n");
		put(".git/worktrees/wt/commondir", "../..\n");
		put(".git/config", "[core]\n\tpager = ./pager\n");
		expect(patterns(["", "lib", "wt"])).toEqual(["pager", "lib/hooks-here", "lib/hooks-here/**", "wt/pager"]);
	});

	it("holds a symlinked hooks path both as written and as its real target", () => {
		mkdirSync(join(ws, "real-hooks"));
		symlinkSync("real-hooks", join(ws, ".githooks"));
		put(".git/config", "[core]\n\thooksPath = .githooks\n");
		expect(patterns()).toEqual([".githooks", ".githooks/**", "real-hooks", "real-hooks/**"]);
	});

	it("holds the whole repository when its config is malformed, naming the line", () => {
		put("sub/.git/HEAD", "ref: refs/heads/main\n");
		put("sub/.git/config", "[core]\n\thooksPath = \"open\n");
		const found = rules(["sub"]);
		expect(found.map((r) => r.pattern)).toEqual(["sub", "sub/**"]);
		expect(found[0]?.reason).toMatch(/sub\/\.git\/config cannot be read as git reads it \(bad config line 2: an unterminated quote\)/);
		put(".git/config", "[core\n");
		expect(patterns()).toEqual(["**"]);
	});

	it(`holds the whole repository past ${MAX_INCLUDE_DEPTH} nested includes, as git refuses them`, () => {
		put(".git/config", "[include]\n\tpath = ../i0\n");
		for (let i = 0; i <= MAX_INCLUDE_DEPTH + 1; i++) put(`i${i}`, `[include]\n\tpath = i${i + 1}\n`);
		expect(patterns()).toContain("**");
	});

	it("reads the config again when it changed on disk, and not when it did not", () => {
		put(".git/config", "[core]\n\thooksPath = one\n");
		const first = rules();
		expect(rules()).toBe(first);
		put(".git/config", "[core]\n\thooksPath = second\n");
		expect(patterns()).toEqual(["second", "second/**"]);
	});

	it("composes with the host's registry: its rules stay, the derived ones join", () => {
		put(".git/config", "[core]\n\thooksPath = .githooks\n");
		const host = new ProtectedPaths([{ pattern: "secrets/**", reason: "host", source: "host" }]);
		const registry = withRepositoryConfig(host, ws, home, { rescan: true });
		expect(registry.covers("secrets/a")).toBe(true);
		expect(registry.covers(".githooks/pre-push")).toBe(true);
		expect(registry.covers(".git/hooks/pre-commit")).toBe(true);
		expect(withRepositoryConfig(host, ws, home)).toBe(registry);
	});
});
