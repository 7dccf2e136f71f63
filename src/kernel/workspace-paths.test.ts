import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidPathError } from "./kernel-errors.js";
import { WorkspaceEscapeError } from "./primitives.js";
import { createTempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";
import { displayPath, resolveWorkspacePath, type WorkspaceRoot, workspaceRoot } from "./workspace-paths.js";

describe("resolveWorkspacePath", () => {
	let ws: TempWorkspace;
	let root: WorkspaceRoot;
	beforeEach(async () => {
		ws = createTempWorkspace();
		ws.put({ "src/a.ts": "a", "notes.md": "n" });
		writeFileSync(path.join(ws.outside, "secret.txt"), "s");
		root = await workspaceRoot(ws.dir);
	});
	afterEach(() => ws.cleanup());

	const expectEscape = (p: string) => expect(resolveWorkspacePath(root, p)).rejects.toBeInstanceOf(WorkspaceEscapeError);

	it("resolves relative paths to their workspace-relative form and real target", async () => {
		expect(await resolveWorkspacePath(root, "src/a.ts")).toEqual({ rel: "src/a.ts", abs: path.join(ws.dir, "src/a.ts") });
		expect(await resolveWorkspacePath(root, "./src/../notes.md")).toEqual({ rel: "notes.md", abs: path.join(ws.dir, "notes.md") });
		expect((await resolveWorkspacePath(root, ".")).rel).toBe(".");
	});

	it("accepts a not-yet-existing file inside the workspace", async () => {
		expect(await resolveWorkspacePath(root, "new/dir/file.txt")).toEqual({
			rel: "new/dir/file.txt",
			abs: path.join(ws.dir, "new/dir/file.txt"),
		});
	});

	it("rejects .. escapes with a one-line message naming the path", async () => {
		await expect(resolveWorkspacePath(root, "../x")).rejects.toThrow("path ../x resolves outside the workspace");
		await expectEscape("src/../../outside/secret.txt");
		await expectEscape("..");
	});

	it("accepts a name that merely starts with two dots", async () => {
		expect((await resolveWorkspacePath(root, "..hidden")).rel).toBe("..hidden");
	});

	it("rejects absolute paths outside and accepts absolute paths inside", async () => {
		await expectEscape("/etc/passwd");
		await expectEscape(path.join(ws.outside, "secret.txt"));
		expect((await resolveWorkspacePath(root, path.join(ws.dir, "src/a.ts"))).rel).toBe("src/a.ts");
	});

	it("accepts absolute paths under the workspace as named when that differs from its real path", async () => {
		const alias = path.join(ws.outside, "alias");
		symlinkSync(ws.dir, alias);
		const aliased = await workspaceRoot(alias);
		expect(aliased.real).toBe(ws.dir);
		expect(await resolveWorkspacePath(aliased, path.join(alias, "notes.md"))).toEqual({
			rel: "notes.md",
			abs: path.join(ws.dir, "notes.md"),
		});
	});

	it("rejects a symlinked file that points outside", async () => {
		symlinkSync(path.join(ws.outside, "secret.txt"), path.join(ws.dir, "link.txt"));
		await expectEscape("link.txt");
	});

	it("rejects a symlinked directory that points outside, for existing and new files below it", async () => {
		symlinkSync(ws.outside, path.join(ws.dir, "out"));
		await expectEscape("out");
		await expectEscape("out/secret.txt");
		await expectEscape("out/new-file.txt");
		await expectEscape("out/new-dir/deeper/file.txt");
	});

	it("rejects a dangling symlink whose target would be created outside", async () => {
		symlinkSync(path.join(ws.outside, "not-yet.txt"), path.join(ws.dir, "dangling.txt"));
		await expectEscape("dangling.txt");
	});

	it("follows a symlink that stays inside to its canonical path", async () => {
		symlinkSync(path.join(ws.dir, "src"), path.join(ws.dir, "code"));
		expect(await resolveWorkspacePath(root, "code/a.ts")).toEqual({ rel: "src/a.ts", abs: path.join(ws.dir, "src/a.ts") });
		symlinkSync("src/fresh.ts", path.join(ws.dir, "fresh-link"));
		expect((await resolveWorkspacePath(root, "fresh-link")).rel).toBe("src/fresh.ts");
	});

	it("rejects a symlink loop with a clear message", async () => {
		symlinkSync("loop-b", path.join(ws.dir, "loop-a"));
		symlinkSync("loop-a", path.join(ws.dir, "loop-b"));
		await expect(resolveWorkspacePath(root, "loop-a/x")).rejects.toThrow(/too many levels of symbolic links/);
	});

	it("rejects an empty path and a path with a NUL byte", async () => {
		await expect(resolveWorkspacePath(root, "")).rejects.toThrow("path is empty");
		await expect(resolveWorkspacePath(root, "a\0b")).rejects.toBeInstanceOf(InvalidPathError);
		await expect(resolveWorkspacePath(root, "a\0b")).rejects.toThrow('path "a\\u0000b" contains a NUL byte');
	});

	it("keeps escape messages on one line", async () => {
		mkdirSync(path.join(ws.dir, "d"));
		const err = await resolveWorkspacePath(root, "d/../../x\ny").catch((e: unknown) => e);
		expect(err).toBeInstanceOf(WorkspaceEscapeError);
		expect((err as Error).message).not.toContain("\n");
		expect(displayPath("x".repeat(300)).length).toBe(201);
	});
});
