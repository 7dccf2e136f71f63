import { describe, expect, it } from "vitest";
import { ProtectedPaths } from "./protected-paths.js";
import { sandboxProtectedRoots } from "./sandbox-roots.js";

describe("sandboxProtectedRoots", () => {
	it("marks as directories the roots whose contents the registry protects", () => {
		const roots = new Map(sandboxProtectedRoots().map((r) => [r.path, r.directory]));
		for (const dir of [".warden", ".git/hooks", ".husky", ".devcontainer"]) expect(roots.get(dir), dir).toBe(true);
		for (const file of [".git/config", ".envrc", ".mcp.json", ".vscode/tasks.json"]) expect(roots.get(file), file).toBe(false);
	});

	it("adds a host's literal paths and leaves its globs to the fs primitives", () => {
		const registry = new ProtectedPaths([
			{ pattern: "deploy/secrets.env", reason: "r", source: "user config" },
			{ pattern: "ci/**", reason: "r", source: "host" },
		]);
		const paths = sandboxProtectedRoots(registry).map((r) => r.path);
		expect(paths).toContain("deploy/secrets.env");
		expect(paths).not.toContain("ci/**");
	});
});
