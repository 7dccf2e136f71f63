import { describe, expect, it } from "vitest";
import { checkProtectedPattern, DEFAULT_PROTECTED_PATHS, ProtectedPathError, ProtectedPaths, SANDBOX_PROTECTED_ROOTS } from "./protected-paths.js";

const registry = new ProtectedPaths();

describe("the default protected paths", () => {
	// One row per default: a path it must cover.
	const rows: [pattern: string, path: string][] = [
		["**/.warden", ".warden"],
		["**/.warden/**", ".warden/config.yaml"],
		["**/.agents/skills", ".agents/skills"],
		["**/.agents/skills/**", ".agents/skills/deploy/SKILL.md"],
		["**/.git", ".git"],
		["**/.git/hooks", ".git/hooks"],
		["**/.git/hooks/**", ".git/hooks/pre-commit"],
		["**/.git/config", ".git/config"],
		["**/.git/config.worktree", ".git/config.worktree"],
		["**/.git/worktrees/*/config.worktree", ".git/worktrees/feature/config.worktree"],
		["**/.git/worktrees/*/config", ".git/worktrees/feature/config"],
		["**/.git/worktrees/*/hooks/**", ".git/worktrees/feature/hooks/pre-commit"],
		["**/.git/worktrees/*/commondir", ".git/worktrees/feature/commondir"],
		["**/.git/worktrees/*/gitdir", ".git/worktrees/feature/gitdir"],
		["**/.git/commondir", ".git/commondir"],
		["**/.git/info/attributes", "lib/.git/info/attributes"],
		["**/.git/objects/info/alternates", ".git/objects/info/alternates"],
		["**/.git/modules/**/hooks/**", ".git/modules/vendor/lib/hooks/post-checkout"],
		["**/.git/modules/**/config", ".git/modules/vendor/config"],
		["**/.git/modules/**/config.worktree", ".git/modules/vendor/config.worktree"],
		["**/.git/modules/**/commondir", ".git/modules/vendor/commondir"],
		["**/.git/modules/**/info/attributes", ".git/modules/vendor/info/attributes"],
		["**/.git/modules/**/objects/info/alternates", ".git/modules/vendor/objects/info/alternates"],
		["**/.envrc", "services/api/.envrc"],
		[".husky/**", ".husky/pre-commit"],
		[".pre-commit-config.yaml", ".pre-commit-config.yaml"],
		[".vscode/tasks.json", ".vscode/tasks.json"],
		[".vscode/settings.json", ".vscode/settings.json"],
		[".devcontainer/**", ".devcontainer/devcontainer.json"],
		[".devcontainer.json", ".devcontainer.json"],
		[".mcp.json", ".mcp.json"],
		[".claude/settings.json", ".claude/settings.json"],
		[".claude/settings.local.json", ".claude/settings.local.json"],
		[".gemini/settings.json", ".gemini/settings.json"],
		[".cursor/mcp.json", ".cursor/mcp.json"],
	];
	it("has a row here for every default", () => {
		expect(rows.map(([p]) => p).sort()).toEqual(DEFAULT_PROTECTED_PATHS.map((d) => d.pattern).sort());
	});
	it.each(rows)("%s covers %s", (pattern, path) => {
		const hit = registry.match(path);
		expect(hit?.rule.pattern).toBe(pattern);
		expect(hit?.rule.source).toBe("default");
	});
	it.each(["src/a.ts", "README.md", ".gitignore", ".github/workflows/ci.yml", "notes/.warden-notes.md", ".env", "package.json", "."])("leaves %s alone", (path) => {
		expect(registry.match(path)).toBeUndefined();
	});
	it("covers nested repositories and direnv files", () => {
		expect(registry.covers("vendor/lib/.git/hooks/pre-push")).toBe(true);
		expect(registry.covers("vendor/lib/.git/config")).toBe(true);
		expect(registry.covers("sub/.warden/config.yaml")).toBe(true);
		// Warden's own project skills live under .warden/: the same row covers them.
		expect(registry.covers(".warden/skills/deploy/scripts/run.sh")).toBe(true);
		expect(registry.covers(".agents/notes.md")).toBe(false);
	});
	it("covers a directory that holds protected paths", () => {
		expect(registry.match(".husky")?.rule.pattern).toBe(".husky/**");
		expect(registry.match(".devcontainer")?.rule.pattern).toBe(".devcontainer/**");
		expect(registry.match(".git/modules/x/hooks")?.rule.pattern).toBe("**/.git/modules/**/hooks/**");
	});
	it("ignores case and ./ prefixes, so another spelling is no way around it", () => {
		expect(registry.covers(".GIT/HOOKS/pre-commit")).toBe(true);
		expect(registry.covers("./.git//config")).toBe(true);
		expect(registry.covers(".Envrc")).toBe(true);
	});
	it("gives every default a reason and a sandbox root for the top-level ones", () => {
		for (const d of DEFAULT_PROTECTED_PATHS) expect(d.reason.length).toBeGreaterThan(10);
		for (const root of SANDBOX_PROTECTED_ROOTS) expect(registry.covers(root)).toBe(true);
	});
});

describe("extending the registry", () => {
	it("adds rules with their source and never loses a default", () => {
		const extended = new ProtectedPaths([{ pattern: "deploy/hooks/**", reason: "runs on deploy", source: "user config ~/.config/warden/config.yaml" }]);
		expect(extended.match("deploy/hooks/post")?.rule.source).toBe("user config ~/.config/warden/config.yaml");
		expect(extended.covers(".git/hooks/pre-commit")).toBe(true);
		expect(extended.rules().length).toBe(DEFAULT_PROTECTED_PATHS.length + 1);
	});
	it("matches whatever case a path is written in, and still tries patterns of braces, classes and extglobs", () => {
		const extended = new ProtectedPaths([
			{ pattern: "ci/{deploy,release}.yml", reason: "the CI runs it", source: "host" },
			{ pattern: "[Mm]akefile.local", reason: "make reads it", source: "host" },
			{ pattern: "tools/+(a|b)/run", reason: "the runner runs it", source: "host" },
			{ pattern: "!(src)/**/hook.sh", reason: "a hook", source: "host" },
		]);
		expect(extended.match(".GIT/Hooks/pre-commit")?.rule.pattern).toBe("**/.git/hooks/**");
		expect(extended.match("pkg/.Git/CONFIG")?.rule.pattern).toBe("**/.git/config");
		expect(extended.match("CI/Release.yml")?.rule.pattern).toBe("ci/{deploy,release}.yml");
		expect(extended.match("makefile.local")?.rule.pattern).toBe("[Mm]akefile.local");
		expect(extended.match("tools/ab/run")?.rule.pattern).toBe("tools/+(a|b)/run");
		expect(extended.match("lib/x/hook.sh")?.rule.pattern).toBe("!(src)/**/hook.sh");
		expect(extended.match("src/ci/deploy.yml")).toBeUndefined();
	});
	it("lists extra literal roots for the sandbox", () => {
		const extended = new ProtectedPaths([
			{ pattern: "ops/run.sh", reason: "cron runs it", source: "host" },
			{ pattern: "ops/**/*.sh", reason: "cron runs them", source: "host" },
		]);
		expect(extended.extraLiteralRoots()).toEqual(["ops/run.sh"]);
	});
	it.each([
		["", "non-empty"],
		["/etc/passwd", "workspace-relative"],
		["../x", "climb out"],
		["a\0b", "NUL"],
	])("refuses the pattern %j", (pattern, words) => {
		expect(checkProtectedPattern(pattern)).toContain(words);
		expect(() => new ProtectedPaths([{ pattern, reason: "r", source: "host" }])).toThrow(ProtectedPathError);
	});
});
