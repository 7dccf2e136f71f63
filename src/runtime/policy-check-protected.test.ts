import { mkdir, mkdtemp, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkPolicy, type PolicyCheck, type PolicyCheckResult } from "./policy-check.js";

let root: string;
let workspace: string;

beforeEach(async () => {
	root = await realpath(await mkdtemp(join(tmpdir(), "warden-policy-protected-")));
	workspace = join(root, "ws");
	await mkdir(join(workspace, ".git", "hooks"), { recursive: true });
	await symlink(join(workspace, ".git", "hooks"), join(workspace, "h"));
});

afterEach(async () => {
	await rm(root, { recursive: true, force: true });
});

function decided(result: PolicyCheckResult): PolicyCheck {
	if (!result.valid) throw new Error(`expected a decision, got: ${result.error}`);
	return result;
}

describe("policy check explains protected paths", () => {
	it("names the layer, the registry rule, its reason and its source", async () => {
		const check = decided(await checkPolicy({ workspace, mode: "full-access", tool: "write_file", arguments: { path: ".git/hooks/pre-commit", content: "x" } }));
		expect(check).toMatchObject({ decision: "ask", layer: "protected-path", rule: { text: "protected:**/.git/hooks/**", source: "default" } });
		expect(check.protected).toEqual({ path: ".git/hooks/pre-commit", pattern: "**/.git/hooks/**", reason: "writes a git hook: runs outside the sandbox on the next commit", source: "default", clears: [".git/hooks/pre-commit"] });
	});

	it("sees through a real workspace symlink into .git/hooks", async () => {
		const check = decided(await checkPolicy({ workspace, mode: "full-access", tool: "write_file", arguments: { path: "h/pre-commit", content: "x" } }));
		expect(check).toMatchObject({ decision: "ask", layer: "protected-path" });
		expect(check.protected?.clears).toEqual(["h/pre-commit", ".git/hooks/pre-commit"]);
	});

	it("names a host entry's source, and the exact host rule that allows it", async () => {
		const protectedPaths = [{ pattern: "deploy/**", reason: "writes the deploy scripts", source: "user config /u/config.yaml" }];
		const check = decided(await checkPolicy({ workspace, protectedPaths, tool: "edit_file", arguments: { path: "deploy/a.sh", old: "a", new: "b" } }));
		expect(check.rule).toEqual({ text: "protected:deploy/**", source: "user config /u/config.yaml" });
		const allowed = decided(await checkPolicy({ workspace, rules: { allow: ["write_file(.git/hooks/pre-commit)"] }, rulesSource: "--allow", tool: "write_file", arguments: { path: ".git/hooks/pre-commit", content: "x" } }));
		expect(allowed).toMatchObject({ decision: "allow", layer: "host-rule", rule: { text: "write_file(.git/hooks/pre-commit)", source: "--allow" } });
		expect(allowed.protected?.path).toBe(".git/hooks/pre-commit");
	});

	it("explains a git config change per sub-command", async () => {
		const check = decided(await checkPolicy({ workspace, mode: "full-access", tool: "shell", arguments: { command: "git status && git config alias.x '!id'" } }));
		expect(check).toMatchObject({ decision: "ask", layer: "protected-path", rule: { text: "protected:git-config alias.*", source: "default (git's executable config keys)" } });
		expect(check.subcommands?.map((s) => s.layer)).toEqual(["mode-rule", "protected-path"]);
		expect(check.subcommands?.[1]?.rule).toEqual({ text: "protected:git-config alias.*", source: "default (git's executable config keys)" });
	});
});
