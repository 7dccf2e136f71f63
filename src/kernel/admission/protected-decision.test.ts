import { beforeAll, describe, expect, it } from "vitest";
import { ProtectedPaths } from "../protected/protected-paths.js";
import { PermissionEngine } from "./permission-engine.js";
import { parseRule } from "./rules.js";
import { fileTool, policy, shellTool, symlinkResolver, WORKSPACE } from "./test-support/policy-fixtures.js";
import type { PermissionMode, PolicyContext } from "./types.js";

let engine: PermissionEngine;
beforeAll(async () => {
	engine = await PermissionEngine.create();
});

const file = (tool: string, path: string, ctx: PolicyContext = policy()) => engine.decide(fileTool(tool, path), { path }, ctx);
const sh = (command: string, ctx: PolicyContext = policy()) => engine.decide(shellTool(command), { command }, ctx);
const allow = (...texts: string[]) => texts.map((t) => parseRule(t, "allow", "--allow"));
const HOOK_REASON = "writes a git hook: runs outside the sandbox on the next commit";

describe("the protected-path layer for file writes", () => {
	it.each<PermissionMode>(["workspace-write", "full-access"])("asks, never allows, a write to a git hook in %s", (mode) => {
		const result = file("write_file", ".git/hooks/pre-commit", policy({ mode }));
		expect(result).toMatchObject({ decision: "ask", layer: "protected-path", rule: "protected:**/.git/hooks/**" });
		expect(result.reason).toContain(HOOK_REASON);
		expect(result.protected).toMatchObject({ path: ".git/hooks/pre-commit", pattern: "**/.git/hooks/**", source: "default", clears: [".git/hooks/pre-commit"] });
	});

	it.each([".warden/config.yaml", ".git/config", ".envrc", ".husky/pre-commit", ".vscode/tasks.json", ".mcp.json", "vendor/lib/.git/hooks/post-checkout", ".git/hooks"])(
		"asks for edit_file of %s in full-access",
		(path) => {
			expect(file("edit_file", path, policy({ mode: "full-access" }))).toMatchObject({ decision: "ask", layer: "protected-path" });
		},
	);

	it.each(["notes/git-hooks.md", "src/config.ts", "docs/.envrc.md", "hooks/pre-commit"])("leaves %s to the mode", (path) => {
		expect(file("write_file", path)).toMatchObject({ decision: "allow", layer: "mode-rule" });
	});

	it("leaves reads alone", () => {
		expect(file("read_file", ".git/hooks/pre-commit")).toMatchObject({ decision: "allow", layer: "mode-rule" });
	});

	it("does not let a broad host allow rule through", () => {
		const ctx = policy({ mode: "full-access", hostRules: allow("write_file(.git/**)", "write_file", "*") });
		expect(file("write_file", ".git/hooks/pre-commit", ctx)).toMatchObject({ decision: "ask", layer: "protected-path" });
	});

	it("lets a host rule naming the exact path through, and only that path", () => {
		const ctx = policy({ hostRules: allow("write_file(.git/hooks/pre-commit)") });
		const result = file("write_file", ".git/hooks/pre-commit", ctx);
		expect(result).toMatchObject({ decision: "allow", layer: "host-rule", rule: "write_file(.git/hooks/pre-commit)" });
		expect(result.reason).toContain("names");
		expect(file("write_file", ".git/hooks/pre-push", ctx)).toMatchObject({ decision: "ask", layer: "protected-path" });
		// For that tool only: an edit_file rule does not clear a write_file call.
		expect(file("edit_file", ".git/hooks/pre-commit", ctx)).toMatchObject({ decision: "ask", layer: "protected-path" });
		expect(file("write_file", `${WORKSPACE}/.git/hooks/pre-commit`, ctx)).toMatchObject({ decision: "allow", layer: "host-rule" });
	});

	it("keeps a denial from an earlier layer", () => {
		expect(file("write_file", ".git/hooks/pre-commit", policy({ mode: "plan" }))).toMatchObject({ decision: "deny", layer: "mode-rule" });
		expect(file("write_file", ".git/hooks/pre-commit", policy({ mode: "read-only" }))).toMatchObject({ decision: "deny", layer: "read-only-mode" });
		const hostDeny = policy({ hostRules: [parseRule("write_file(.git/**)", "deny", "test"), ...allow("write_file(.git/hooks/pre-commit)")] });
		expect(file("write_file", ".git/hooks/pre-commit", hostDeny)).toMatchObject({ decision: "deny", layer: "host-rule" });
	});

	it("decides on the real target: a workspace symlink into .git/hooks", () => {
		const resolvePath = symlinkResolver({ [`${WORKSPACE}/h`]: `${WORKSPACE}/.git/hooks` });
		const result = file("write_file", "h/pre-commit", policy({ mode: "full-access", resolvePath }));
		expect(result).toMatchObject({ decision: "ask", layer: "protected-path" });
		expect(result.protected?.clears).toEqual(["h/pre-commit", ".git/hooks/pre-commit"]);
		// A rule must name the hook itself, not the link that leads to it.
		expect(file("write_file", "h/pre-commit", policy({ resolvePath, hostRules: allow("write_file(h/pre-commit)") }))).toMatchObject({ decision: "ask", layer: "protected-path" });
		expect(file("write_file", "h/pre-commit", policy({ resolvePath, hostRules: allow("write_file(.git/hooks/pre-commit)") }))).toMatchObject({ decision: "allow", layer: "host-rule" });
	});

	it("sees through a symlink even to a file that does not exist yet", () => {
		const links: Record<string, string> = { [`${WORKSPACE}/h`]: `${WORKSPACE}/.git/hooks` };
		const resolvePath = (abs: string) => (abs.endsWith("/new-hook") ? undefined : symlinkResolver(links)(abs));
		expect(file("write_file", "h/new-hook", policy({ resolvePath }))).toMatchObject({ decision: "ask", layer: "protected-path" });
	});

	it("uses the host's registry, which adds to the defaults", () => {
		const protectedPaths = new ProtectedPaths([{ pattern: "deploy/**", reason: "writes the deploy scripts CI runs with production keys", source: "user config /u.yaml" }]);
		const result = file("write_file", "deploy/run.sh", policy({ protectedPaths }));
		expect(result).toMatchObject({ decision: "ask", layer: "protected-path" });
		expect(result.protected?.source).toBe("user config /u.yaml");
		expect(file("write_file", ".git/hooks/x", policy({ protectedPaths }))).toMatchObject({ layer: "protected-path" });
	});
});

describe("the protected-path layer for git's executable config", () => {
	it.each<PermissionMode>(["workspace-write", "full-access"])("asks for git config core.hooksPath in %s", (mode) => {
		const result = sh("git config core.hooksPath .h", policy({ mode, sandbox: { available: true } }));
		expect(result).toMatchObject({ decision: "ask", layer: "protected-path", rule: "protected:git-config core.hooksPath" });
		expect(result.reason).toContain("core.hooksPath");
		expect(result.protected?.pattern).toBe("core.hooksPath");
	});

	it.each(["git config alias.x '!sh -c id'", "git -c core.hooksPath=.h commit -m x", "git status && git config core.fsmonitor ./x"])("asks for %s in full-access", (command) => {
		expect(sh(command, policy({ mode: "full-access" }))).toMatchObject({ decision: "ask", layer: "protected-path" });
	});

	it("leaves reading config to the mode", () => {
		expect(sh("git config --get user.name", policy({ mode: "full-access" }))).toMatchObject({ decision: "allow", layer: "mode-rule" });
	});

	it("a broad shell allow does not let it through; an exact one does", () => {
		expect(sh("git config core.hooksPath .h", policy({ mode: "full-access", hostRules: allow("shell(git config *)") }))).toMatchObject({ decision: "ask", layer: "protected-path" });
		expect(sh("git config core.hooksPath .h", policy({ hostRules: allow("shell(git config core.hooksPath .h)") }))).toMatchObject({ decision: "allow", layer: "host-rule" });
	});

	it("a hardline or destructive denial elsewhere in the command still decides", () => {
		expect(sh("git config core.hooksPath .h; rm -rf /", policy({ mode: "full-access" }))).toMatchObject({ decision: "deny", layer: "hardline" });
	});
});
