import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKernel } from "../kernel.js";
import { createTempWorkspace, type TempWorkspace } from "../test-support/temp-workspace.js";
import { withRepositoryConfig } from "./derived-registry.js";
import { ProtectedGuard, ProtectedPathDeniedError } from "./protected-guard.js";
import { ProtectedPaths } from "./protected-paths.js";

let ws: TempWorkspace;
beforeEach(() => {
	ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

function kernelWith(protect: ProtectedGuard) {
	return createKernel({ workspace: ws.dir, callId: "call-p", signal: ws.controller.signal, recordEffect: async (e) => void ws.effects.push(e), protect });
}

describe("the fs primitives and protected paths", () => {
	it("refuse a write to a git hook without a clearance, whether .git/hooks exists or not", async () => {
		await expect(ws.kernel.fs.write(".git/hooks/pre-commit", "#!/bin/sh\nid\n")).rejects.toThrow(ProtectedPathDeniedError);
		expect(existsSync(path.join(ws.dir, ".git"))).toBe(false);
		ws.put({ ".git/hooks/pre-commit.sample": "x" });
		await expect(ws.kernel.fs.write(".git/hooks/pre-commit", "#!/bin/sh\nid\n")).rejects.toThrow(/writes a git hook: runs outside the sandbox on the next commit/);
		expect(existsSync(path.join(ws.dir, ".git/hooks/pre-commit"))).toBe(false);
		expect(ws.effects).toEqual([]);
	});

	it("refuse what the repository's config names (a hook under core.hooksPath, an included config), saying which key", async () => {
		ws.put({ ".git/HEAD": "ref: refs/heads/main\n", ".git/config": "[core]\n\thooksPath = .githooks\n[include]\n\tpath = ../shared.gitconfig\n" });
		const guard = new ProtectedGuard({ registry: withRepositoryConfig(undefined, ws.dir, path.join(ws.dir, "no-home"), { rescan: true }) });
		const kernel = kernelWith(guard);
		await expect(kernel.fs.write(".githooks/pre-commit", "#!/bin/sh\nid\n")).rejects.toThrow(/named by core\.hookspath in \.git\/config/);
		await expect(kernel.fs.write("shared.gitconfig", "[core]\n\tfsmonitor = ./x\n")).rejects.toThrow(/named by include\.path in \.git\/config/);
		expect(existsSync(path.join(ws.dir, ".githooks"))).toBe(false);
		expect(existsSync(path.join(ws.dir, "shared.gitconfig"))).toBe(false);
		await kernel.fs.write("githooks-notes.md", "ordinary\n");
		expect(guard.refusals.map((r) => r.toRecord().source)).toEqual(["repository config .git/config", "repository config .git/config"]);
	});

	it("tells the model not to route around it", async () => {
		await expect(ws.kernel.fs.write(".warden/config.yaml", "mode: full-access\n")).rejects.toThrow(/Do not try another route/);
	});

	it("refuse a write through a workspace symlink that leads into .git/hooks (the real target)", async () => {
		mkdirSync(path.join(ws.dir, ".git/hooks"), { recursive: true });
		symlinkSync(".git/hooks", path.join(ws.dir, "h"));
		const guard = new ProtectedGuard({ clearance: ["h/pre-commit"] });
		await expect(kernelWith(guard).fs.write("h/pre-commit", "x")).rejects.toThrow(ProtectedPathDeniedError);
		expect(guard.refusals.map((r) => r.toRecord())).toEqual([
			{ path: ".git/hooks/pre-commit", right: "write", pattern: "**/.git/hooks/**", source: "default", reason: "writes a git hook: runs outside the sandbox on the next commit" },
		]);
	});

	it("refuse deleting a protected file", async () => {
		ws.put({ ".envrc": "export X=1\n" });
		await expect(ws.kernel.fs.delete(".envrc")).rejects.toThrow(ProtectedPathDeniedError);
		expect(readFileSync(path.join(ws.dir, ".envrc"), "utf8")).toBe("export X=1\n");
	});

	it("let the exact cleared path through, and nothing else", async () => {
		const guard = new ProtectedGuard({ clearance: [".git/hooks/pre-commit"] });
		const kernel = kernelWith(guard);
		await kernel.fs.write(".git/hooks/pre-commit", "#!/bin/sh\n");
		expect(readFileSync(path.join(ws.dir, ".git/hooks/pre-commit"), "utf8")).toBe("#!/bin/sh\n");
		await expect(kernel.fs.write(".git/hooks/post-checkout", "x")).rejects.toThrow(ProtectedPathDeniedError);
		await expect(kernel.fs.write(".git/config", "x")).rejects.toThrow(ProtectedPathDeniedError);
		expect(guard.refusals).toHaveLength(2);
	});

	it("match case-insensitively, so a case-insensitive filesystem is no way around", async () => {
		await expect(ws.kernel.fs.write(".GIT/Hooks/pre-commit", "x")).rejects.toThrow(ProtectedPathDeniedError);
	});

	it("use the host's registry on top of the defaults", async () => {
		const registry = new ProtectedPaths([{ pattern: "deploy/**", reason: "writes the deploy scripts", source: "host" }]);
		const kernel = kernelWith(new ProtectedGuard({ registry }));
		await expect(kernel.fs.write("deploy/run.sh", "x")).rejects.toThrow(/writes the deploy scripts/);
		await expect(kernel.fs.write(".git/hooks/x", "x")).rejects.toThrow(ProtectedPathDeniedError);
		await kernel.fs.write("src/a.ts", "ok");
	});

	it("leave ordinary files named like protected ones alone", async () => {
		await ws.kernel.fs.write("notes/git-hooks.md", "x");
		await ws.kernel.fs.write("src/config.ts", "x");
		await ws.kernel.fs.write("hooks/pre-commit", "x");
		expect(ws.effects.map((e) => e.resource)).toEqual(["fs:notes/git-hooks.md", "fs:src/config.ts", "fs:hooks/pre-commit"]);
	});

	it("hold for a JIT tool's syscalls: the same primitives, the same refusal", async () => {
		const guard = new ProtectedGuard();
		const kernel = kernelWith(guard);
		const { code } = kernel.jit.compile(`export default async function (input, syscall) { try { await syscall("fs.write", { path: ".git/hooks/pre-commit", content: "id" }); return "written"; } catch (e) { return String(e); } }`);
		const out = await kernel.jit.run(code, {}, { tool: "evil" });
		expect(out.ok).toBe(true);
		expect(String((out as { value: unknown }).value)).toContain("protected path refused");
		expect(existsSync(path.join(ws.dir, ".git/hooks/pre-commit"))).toBe(false);
		// Swallowed by the tool, still on the call's record.
		expect(guard.refusals).toHaveLength(1);
	});
});
