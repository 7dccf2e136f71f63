import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
	FileTooLargeError,
	lstatIfExists,
	NotRegularFileError,
	readdirWithTypes,
	readFile,
	SYNC_READ_MAX_BYTES,
	walkFiles,
	writeFileAtomic,
} from "./fs-provider.js";

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(path.join(tmpdir(), "warden-fsp-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function put(rel: string, content: string | Uint8Array = "x"): void {
	mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
	writeFileSync(path.join(dir, rel), content);
}

describe("readFile", () => {
	it("reads a file within the limit and refuses a larger one", async () => {
		put("a.txt", "hello");
		expect((await readFile(path.join(dir, "a.txt"), { maxBytes: 5 })).toString()).toBe("hello");
		const err = await readFile(path.join(dir, "a.txt"), { maxBytes: 4 }).catch((e: unknown) => e);
		expect(err).toBeInstanceOf(FileTooLargeError);
		expect(err).toMatchObject({ size: 5, maxBytes: 4 });
	});

	it("reads on past what fstat said, up to the limit: a file that says it is empty but is not (procfs) is read whole, or refused", async () => {
		const status = "/proc/self/status";
		expect(statSync(status).size).toBe(0);
		const whole = await readFile(status, { maxBytes: 1_000_000 });
		expect(whole.toString()).toMatch(/^Name:/);
		expect(whole.length).toBeGreaterThan(64);
		await expect(readFile(status, { maxBytes: 16 })).rejects.toBeInstanceOf(FileTooLargeError);
	});

	it("reads a small file on the calling thread and a larger one through the pool, byte for byte, and an empty one", async () => {
		const sizes = [4096, SYNC_READ_MAX_BYTES, SYNC_READ_MAX_BYTES + 1, 3 * SYNC_READ_MAX_BYTES + 7];
		for (const size of sizes) {
			const bytes = Buffer.alloc(size);
			for (let i = 0; i < size; i++) bytes[i] = (i * 31 + size) & 0xff;
			put(`f${size}.bin`, bytes);
			expect((await readFile(path.join(dir, `f${size}.bin`), { maxBytes: 1_000_000 })).equals(bytes)).toBe(true);
		}
		await expect(readFile(path.join(dir, `f${SYNC_READ_MAX_BYTES + 1}.bin`), { maxBytes: SYNC_READ_MAX_BYTES })).rejects.toBeInstanceOf(FileTooLargeError);
		put("empty.txt", "");
		expect((await readFile(path.join(dir, "empty.txt"), { maxBytes: 10 })).length).toBe(0);
	});

	it("refuses a directory and does not block on a FIFO", async () => {
		await expect(readFile(dir, { maxBytes: 10 })).rejects.toBeInstanceOf(NotRegularFileError);
		execFileSync("mkfifo", [path.join(dir, "pipe")]);
		await expect(readFile(path.join(dir, "pipe"), { maxBytes: 10 })).rejects.toMatchObject({ type: "other" });
	});
});

describe("writeFileAtomic", () => {
	it("creates parent directories, replaces content, keeps the mode and leaves no temp file", async () => {
		const target = path.join(dir, "deep/er/file.sh");
		await writeFileAtomic(target, "one");
		expect(readFileSync(target, "utf8")).toBe("one");
		await writeFileAtomic(target, "two", { mode: 0o755 });
		expect(readFileSync(target, "utf8")).toBe("two");
		expect(statSync(target).mode & 0o777).toBe(0o755);
		expect(readdirSync(path.dirname(target))).toEqual(["file.sh"]);
	});

	it("replaces a symlink's own entry, not its target, when given the link path", async () => {
		put("real.txt", "real");
		symlinkSync(path.join(dir, "real.txt"), path.join(dir, "link.txt"));
		await writeFileAtomic(path.join(dir, "link.txt"), "new");
		expect(readFileSync(path.join(dir, "real.txt"), "utf8")).toBe("real");
		expect((await lstatIfExists(path.join(dir, "link.txt")))?.type).toBe("file");
	});
});

describe("readdirWithTypes and lstatIfExists", () => {
	it("lists entries sorted with their types and sizes", async () => {
		put("b.txt", "12345");
		mkdirSync(path.join(dir, "a"));
		symlinkSync("b.txt", path.join(dir, "c"));
		expect(await readdirWithTypes(dir)).toMatchObject([
			{ name: "a", type: "dir" },
			{ name: "b.txt", type: "file", size: 5 },
			{ name: "c", type: "symlink" },
		]);
	});

	it("returns null for a missing path or a path under a file", async () => {
		put("f", "x");
		expect(await lstatIfExists(path.join(dir, "missing"))).toBeNull();
		expect(await lstatIfExists(path.join(dir, "f/under"))).toBeNull();
	});
});

describe("walkFiles", () => {
	beforeEach(() => {
		for (const f of ["a.txt", "a/b.txt", "a/c/d.txt", "b.txt", ".git/HEAD", "node_modules/m/index.js", "z/node_modules/q.js"]) put(f);
		symlinkSync(dir, path.join(dir, "self-link"));
	});

	it("returns regular files in sorted path order without following symlinks", async () => {
		const { paths, truncated } = await walkFiles(dir, { limit: 100 });
		expect(truncated).toBe(false);
		expect(paths).toEqual([".git/HEAD", "a.txt", "a/b.txt", "a/c/d.txt", "b.txt", "node_modules/m/index.js", "z/node_modules/q.js"]);
		expect([...paths].sort()).toEqual(paths);
	});

	it("skips named directories at any depth", async () => {
		const { paths } = await walkFiles(dir, { limit: 100, skipDirs: [".git", "node_modules"] });
		expect(paths).toEqual(["a.txt", "a/b.txt", "a/c/d.txt", "b.txt"]);
	});

	it("stops at the limit with a sorted prefix and says it was truncated", async () => {
		expect(await walkFiles(dir, { limit: 2, skipDirs: [".git"] })).toEqual({ paths: ["a.txt", "a/b.txt"], truncated: true });
		expect(await walkFiles(dir, { limit: 4, skipDirs: [".git", "node_modules"] })).toEqual({
			paths: ["a.txt", "a/b.txt", "a/c/d.txt", "b.txt"],
			truncated: false,
		});
	});
});
