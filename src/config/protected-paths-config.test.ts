import { describe, expect, it } from "vitest";
import { DEFAULT_PROTECTED_PATHS } from "../kernel/protected/protected-paths.js";
import { RuntimeConfigError } from "../runtime/runtime-config-error.js";
import { sessionPolicy } from "../runtime/session-policy.js";
import { ConfigError } from "./config-error.js";
import { resolveConfig } from "./resolve-config.js";
import { configFixture } from "./test-support/config-fixture.js";

function setup(files: { user?: string; project?: string }) {
	const fx = configFixture(files, "warden-protected-config-");
	return { ...fx, resolve: () => resolveConfig({ workspace: fx.workspace, env: fx.env }) };
}

const USER = "protected_paths:\n  - { pattern: 'deploy/**', reason: 'writes the deploy scripts CI runs with production keys' }\n";

describe("protected_paths in the config", () => {
	it("the user's entries join the defaults, each naming its file", async () => {
		const s = setup({ user: USER });
		const config = await s.resolve();
		expect(config.protectedPaths).toEqual([{ pattern: "deploy/**", reason: "writes the deploy scripts CI runs with production keys", source: `user config ${s.userPath}` }]);
		const policy = await sessionPolicy({ workspace: s.workspace, protectedPaths: config.protectedPaths! }, s.env);
		expect(policy.protectedPaths!.match("deploy/run.sh")?.rule.source).toBe(`user config ${s.userPath}`);
		expect(policy.protectedPaths!.match(".git/hooks/pre-commit")?.rule.source).toBe("default");
	});

	it("an untrusted project's entries still apply (they only tighten), and cannot remove any", async () => {
		const s = setup({ user: USER, project: "protected_paths:\n  - { pattern: 'Makefile', reason: 'make runs it' }\n" });
		const config = await s.resolve();
		expect(config.trustedProject).toBe(false);
		expect(config.ignored).toEqual([]);
		expect(config.protectedPaths!.map((p) => p.pattern)).toEqual(["deploy/**", "Makefile"]);
		const policy = await sessionPolicy({ workspace: s.workspace, protectedPaths: config.protectedPaths! }, s.env);
		const patterns = policy.protectedPaths!.rules().map((r) => r.pattern);
		for (const d of DEFAULT_PROTECTED_PATHS) expect(patterns).toContain(d.pattern);
		expect(patterns).toContain("deploy/**");
		expect(policy.protectedPaths!.match("Makefile")?.rule.source).toBe(`project config ${s.projectPath}`);
	});

	it.each([
		["protected_paths:\n  - { pattern: '/etc/x', reason: r }\n", 'protected_paths[0].pattern: protected path pattern "/etc/x" must be workspace-relative, not absolute'],
		["protected_paths:\n  - { pattern: '../x', reason: r }\n", 'protected_paths[0].pattern: protected path pattern "../x" must not climb out with ..'],
		["protected_paths:\n  - { pattern: '', reason: r }\n", "protected_paths[0].pattern must not be empty"],
		["protected_paths:\n  - { pattern: x }\n", "protected_paths[0] must have required property 'reason'"],
		["protected_paths:\n  - { pattern: x, reason: r, remove: true }\n", "protected_paths[0].remove is not a known key (known: pattern, reason)"],
		["protected_paths: x\n", 'protected_paths must be a list, got string "x"'],
	])("a bad entry is one line naming the file and the field: %s", async (text, why) => {
		const s = setup({ project: text });
		await expect(s.resolve()).rejects.toThrow(new ConfigError(`config ${s.projectPath}: ${why}`));
	});

	it("a host's bad entry is one line too", async () => {
		const s = setup({});
		await expect(sessionPolicy({ workspace: s.workspace, protectedPaths: [{ pattern: "/abs", reason: "r" }] }, s.env)).rejects.toThrow(RuntimeConfigError);
		await expect(sessionPolicy({ workspace: s.workspace, protectedPaths: [{ pattern: "x", reason: "" }] }, s.env)).rejects.toThrow("protectedPaths[0] must be { pattern, reason } with a non-empty reason");
		const policy = await sessionPolicy({ workspace: s.workspace, protectedPaths: [{ pattern: "ops/**", reason: "ops" }] }, s.env);
		expect(policy.protectedPaths!.match("ops/a")?.rule.source).toBe("host");
	});
});
