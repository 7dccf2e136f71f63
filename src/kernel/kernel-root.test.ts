/**
 * A kernel given the workspace root the session resolved at open: the workspace is not resolved
 * again per call, and every target still is, at the primitive, each time.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKernel } from "./kernel.js";
import { WorkspaceEscapeError } from "./primitives.js";
import { createTempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let ws: TempWorkspace;
beforeEach(() => {
	ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

function kernelAt(callId: string) {
	return createKernel({ workspace: ws.dir, root: { given: ws.dir, real: ws.dir }, callId, signal: new AbortController().signal, recordEffect: async () => {} });
}

describe("a kernel given the session's workspace root", () => {
	it("resolves a symlink's target at each read: one retargeted outside between two calls is refused", async () => {
		ws.put({ "a.txt": "inside" });
		writeFileSync(path.join(ws.outside, "secret"), "outside");
		symlinkSync("a.txt", path.join(ws.dir, "link"));
		expect((await kernelAt("call-1").fs.read("link")).content).toBe("inside");
		unlinkSync(path.join(ws.dir, "link"));
		symlinkSync(path.join(ws.outside, "secret"), path.join(ws.dir, "link"));
		await expect(kernelAt("call-2").fs.read("link")).rejects.toBeInstanceOf(WorkspaceEscapeError);
	});

	it("resolves a parent directory swapped for a symlink to outside at the read that follows", async () => {
		ws.put({ "sub/f.txt": "inside" });
		writeFileSync(path.join(ws.outside, "f.txt"), "outside");
		const kernel = kernelAt("call-1");
		expect((await kernel.fs.read("sub/f.txt")).content).toBe("inside");
		rmSync(path.join(ws.dir, "sub"), { recursive: true });
		symlinkSync(ws.outside, path.join(ws.dir, "sub"));
		await expect(kernel.fs.read("sub/f.txt")).rejects.toBeInstanceOf(WorkspaceEscapeError);
	});

	it("keeps confining to the root it was given when the workspace's name is made a symlink to elsewhere", async () => {
		ws.put({ "a.txt": "inside" });
		writeFileSync(path.join(ws.outside, "a.txt"), "outside");
		const moved = `${ws.dir}-moved`;
		renameSync(ws.dir, moved);
		symlinkSync(ws.outside, ws.dir);
		try {
			// The name now leads outside; what the session resolved at open does not, so nothing there is read.
			await expect(kernelAt("call-1").fs.read("a.txt")).rejects.toBeInstanceOf(WorkspaceEscapeError);
		} finally {
			unlinkSync(ws.dir);
			renameSync(moved, ws.dir);
		}
	});

	it("creates a new file's missing parents under the real root", async () => {
		mkdirSync(path.join(ws.dir, "d"));
		const outcome = await kernelAt("call-1").fs.write("d/e/new.txt", "x");
		expect(outcome).toMatchObject({ path: "d/e/new.txt", created: true });
	});
});

describe("createKernel's primitive families", () => {
	it("are each built once, on first use, and the same object on every use", async () => {
		ws.put({ "a.txt": "x" });
		const kernel = kernelAt("call-1");
		expect(kernel.fs).toBe(kernel.fs);
		expect(kernel.shell).toBe(kernel.shell);
		expect(kernel.jit).toBe(kernel.jit);
		expect((await kernel.fs.read("a.txt")).content).toBe("x");
		expect(Object.keys({ ...kernel }).sort()).toEqual(["fs", "jit", "mcp", "memory", "net", "shell"]);
	});
});
