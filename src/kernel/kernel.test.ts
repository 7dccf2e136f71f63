import { createHash } from "node:crypto";
import { chmodSync, linkSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKernel } from "./kernel.js";
import { BinaryFileError, FileTooLargeError, FsPrimitiveError, PrimitiveCancelledError } from "./kernel-errors.js";
import { scrubEnv } from "./kernel-shell.js";
import { WorkspaceEscapeError } from "./primitives.js";
import { createTempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

const sha256Of = (s: string) => createHash("sha256").update(s).digest("hex");

let ws: TempWorkspace;
beforeEach(() => {
	ws = createTempWorkspace();
});
afterEach(() => ws.cleanup());

describe("fs.read", () => {
	it("returns the text, byte count and sha256 under the canonical path", async () => {
		ws.put({ "docs/a.md": "héllo\n" });
		const file = await ws.kernel.fs.read("./docs/../docs/a.md");
		expect(file).toEqual({ path: "docs/a.md", content: "héllo\n", bytes: 7, sha256: sha256Of("héllo\n") });
	});

	it("refuses a binary file, naming its size", async () => {
		ws.put({ "img.bin": new Uint8Array([0x89, 0x50, 0x00, 0x47]) });
		const err = await ws.kernel.fs.read("img.bin").catch((e: unknown) => e);
		expect(err).toBeInstanceOf(BinaryFileError);
		expect((err as Error).message).toBe("img.bin is a binary file (4 bytes)");
	});

	it("refuses a file over maxBytes and reports a missing file by its relative path", async () => {
		ws.put({ "big.txt": "0123456789" });
		await expect(ws.kernel.fs.read("big.txt", { maxBytes: 9 })).rejects.toBeInstanceOf(FileTooLargeError);
		await expect(ws.kernel.fs.read("nope.txt")).rejects.toThrow(/^nope\.txt does not exist$/);
		await expect(ws.kernel.fs.read(".")).rejects.toThrow(". is a directory, not a regular file");
	});

	it("refuses escapes", async () => {
		writeFileSync(path.join(ws.outside, "secret"), "s");
		symlinkSync(path.join(ws.outside, "secret"), path.join(ws.dir, "s"));
		await expect(ws.kernel.fs.read("s")).rejects.toBeInstanceOf(WorkspaceEscapeError);
		await expect(ws.kernel.fs.read("../outside/secret")).rejects.toBeInstanceOf(WorkspaceEscapeError);
	});
});

describe("fs.write", () => {
	it("creates a file with parent directories and records the effect with its diff before returning", async () => {
		const outcome = await ws.kernel.fs.write("new/dir/f.txt", "one\ntwo\n");
		expect(readFileSync(path.join(ws.dir, "new/dir/f.txt"), "utf8")).toBe("one\ntwo\n");
		expect(outcome).toMatchObject({ path: "new/dir/f.txt", created: true, bytesWritten: 8 });
		expect(outcome.diff).toBe("--- a/new/dir/f.txt\n+++ b/new/dir/f.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n");
		expect(ws.effects).toEqual([
			{
				call_id: "call-1",
				effect: "fs.write",
				resource: "fs:new/dir/f.txt",
				data: {
					created: true,
					bytes: 8,
					diff: outcome.diff,
					sha256_before: null,
					sha256_after: sha256Of("one\ntwo\n"),
				},
			},
		]);
	});

	it("updates a file, keeping its mode, with a before/after diff and both hashes", async () => {
		ws.put({ "run.sh": "echo a\n" });
		chmodSync(path.join(ws.dir, "run.sh"), 0o750);
		const outcome = await ws.kernel.fs.write("run.sh", "echo b\n");
		expect(outcome.created).toBe(false);
		expect(outcome.diff).toContain("-echo a\n+echo b\n");
		expect(statSync(path.join(ws.dir, "run.sh")).mode & 0o777).toBe(0o750);
		expect(ws.effects[0]?.data).toMatchObject({
			created: false,
			sha256_before: sha256Of("echo a\n"),
			sha256_after: sha256Of("echo b\n"),
		});
	});

	it("writes through an inside symlink to the real target and records the canonical resource", async () => {
		ws.put({ "real.md": "r\n" });
		symlinkSync("real.md", path.join(ws.dir, "alias.md"));
		const outcome = await ws.kernel.fs.write("alias.md", "changed\n");
		expect(outcome.path).toBe("real.md");
		expect(readFileSync(path.join(ws.dir, "real.md"), "utf8")).toBe("changed\n");
		expect(ws.effects[0]?.resource).toBe("fs:real.md");
	});

	it("refuses a new file under a symlinked parent that leads outside, writing and recording nothing", async () => {
		symlinkSync(ws.outside, path.join(ws.dir, "out"));
		await expect(ws.kernel.fs.write("out/new.txt", "x")).rejects.toBeInstanceOf(WorkspaceEscapeError);
		expect(() => statSync(path.join(ws.outside, "new.txt"))).toThrow();
		expect(ws.effects).toEqual([]);
	});

	it("refuses to write over a directory or under a file", async () => {
		ws.put({ "d/x": "x" });
		await expect(ws.kernel.fs.write("d", "x")).rejects.toThrow("d is a directory, not a regular file");
		await expect(ws.kernel.fs.write("d/x/under-a-file", "x")).rejects.toThrow("d/x/under-a-file: a component of the path is not a directory");
	});

	it("does not start a write once the call is cancelled", async () => {
		ws.controller.abort();
		await expect(ws.kernel.fs.write("late.txt", "x")).rejects.toBeInstanceOf(PrimitiveCancelledError);
		expect(() => statSync(path.join(ws.dir, "late.txt"))).toThrow();
	});
});

describe("fs.list, fs.walk, fs.resolve", () => {
	it("lists a directory and refuses to list a file", async () => {
		ws.put({ "a.txt": "abc", "sub/b.txt": "b" });
		expect(await ws.kernel.fs.list(".")).toEqual([
			{ name: "a.txt", type: "file", size: 3 },
			expect.objectContaining({ name: "sub", type: "dir" }),
		]);
		await expect(ws.kernel.fs.list("a.txt")).rejects.toBeInstanceOf(FsPrimitiveError);
	});

	it("walks with workspace-relative paths, from a subdirectory or a single file", async () => {
		ws.put({ "a.txt": "a", "sub/b.txt": "b", "sub/c/d.txt": "d", ".git/HEAD": "h" });
		expect(await ws.kernel.fs.walk(".", { limit: 10, skipDirs: [".git"] })).toEqual({
			paths: ["a.txt", "sub/b.txt", "sub/c/d.txt"],
			truncated: false,
		});
		expect((await ws.kernel.fs.walk("sub", { limit: 10 })).paths).toEqual(["sub/b.txt", "sub/c/d.txt"]);
		expect((await ws.kernel.fs.walk("sub/b.txt", { limit: 10 })).paths).toEqual(["sub/b.txt"]);
	});

	it("resolves to the canonical relative path or throws on escape", async () => {
		expect(await ws.kernel.fs.resolve(path.join(ws.dir, "x/y.txt"))).toBe("x/y.txt");
		await expect(ws.kernel.fs.resolve("/etc")).rejects.toThrow("path /etc resolves outside the workspace");
	});

	it("reports a missing workspace in one line", async () => {
		const kernel = createKernel({
			workspace: path.join(ws.dir, "missing"),
			callId: "c",
			signal: new AbortController().signal,
			recordEffect: async () => {},
		});
		await expect(kernel.fs.read("x")).rejects.toThrow(/^workspace .*missing does not exist$/);
	});
});

describe("shell.exec", () => {
	it("runs in the workspace and records the effect", async () => {
		const out = await ws.kernel.shell.exec("pwd; exit 2", { timeoutMs: 5_000, maxOutputBytes: 10_000 });
		expect(out).toMatchObject({ exitCode: 2, stdout: `${ws.dir}\n`, timedOut: false, cancelled: false, truncated: false });
		expect(ws.effects).toEqual([
			{
				call_id: "call-1",
				effect: "shell.exec",
				resource: "shell:pwd; exit 2",
				data: {
					command: "pwd; exit 2",
					exit_code: 2,
					signal: null,
					timed_out: false,
					cancelled: false,
					duration_ms: out.durationMs,
					truncated: false,
				},
			},
		]);
	});

	it("hides credential-looking variables from the command", async () => {
		const kernel = ws.kernelFor({
			callId: "env",
			env: { PATH: process.env.PATH, FAKE_API_KEY: "sk-fake", GH_TOKEN: "t", db_password: "p", VISIBLE: "v" },
		});
		const out = await kernel.shell.exec('echo "[$FAKE_API_KEY][$GH_TOKEN][$db_password][$VISIBLE]"', {
			timeoutMs: 5_000,
			maxOutputBytes: 10_000,
		});
		expect(out.stdout).toBe("[][][][v]\n");
		expect(scrubEnv({ AWS_SECRET_ACCESS_KEY: "x", MY_CREDENTIALS: "y", PASSWD: "z", HOME: "/h" })).toEqual({ HOME: "/h" });
		// A secret under an innocent name is dropped by its shape.
		expect(scrubEnv({ DATABASE_URL: "postgres://app:s3cretpw@db/app", EXTRA: "Bearer abcdefghijklmnopqrstuvwxyz123456", LANG: "en_US.UTF-8" })).toEqual({ LANG: "en_US.UTF-8" });
	});

	it("records a timed-out command as such", async () => {
		const out = await ws.kernel.shell.exec("sleep 20", { timeoutMs: 200, maxOutputBytes: 100 });
		expect(out.timedOut).toBe(true);
		expect(ws.effects[0]?.data).toMatchObject({ timed_out: true, exit_code: null });
	});

	it("does not start once the call is cancelled, and records nothing", async () => {
		ws.controller.abort();
		await expect(ws.kernel.shell.exec("touch started", { timeoutMs: 1_000, maxOutputBytes: 100 })).rejects.toBeInstanceOf(
			PrimitiveCancelledError,
		);
		expect(ws.effects).toEqual([]);
	});

	it("rejects a NUL byte in the command and nonsensical limits", async () => {
		await expect(ws.kernel.shell.exec("echo a\0b", { timeoutMs: 1_000, maxOutputBytes: 100 })).rejects.toThrow("NUL byte");
		await expect(ws.kernel.shell.exec("true", { timeoutMs: 0, maxOutputBytes: 100 })).rejects.toBeInstanceOf(RangeError);
	});
});

describe("hard links", () => {
	it("refuses to read a file that has another name, which may be outside the workspace", async () => {
		writeFileSync(path.join(ws.outside, "secret.txt"), "outside secret\n");
		linkSync(path.join(ws.outside, "secret.txt"), path.join(ws.dir, "innocent.txt"));
		await expect(ws.kernel.fs.read("innocent.txt")).rejects.toThrow("innocent.txt has 2 hard links; Warden cannot tell where the others are, so it refuses to read it");
	});

	it("writes replace the name inside the workspace and never write through to the other link", async () => {
		writeFileSync(path.join(ws.outside, "target.txt"), "original\n");
		linkSync(path.join(ws.outside, "target.txt"), path.join(ws.dir, "alias.txt"));
		await ws.kernel.fs.write("alias.txt", "replaced\n");
		expect(readFileSync(path.join(ws.outside, "target.txt"), "utf8")).toBe("original\n");
		expect(readFileSync(path.join(ws.dir, "alias.txt"), "utf8")).toBe("replaced\n");
	});
});
