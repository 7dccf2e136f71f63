import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { argumentsDigest, describeTarget, normalizedCommand, previewDiff, sha256 } from "./target-state.js";

let root: string;
let workspace: string;

beforeEach(async () => {
	root = await mkdtemp(join(tmpdir(), "warden-target-"));
	workspace = join(root, "ws");
	await mkdir(join(workspace, "src"), { recursive: true });
	await writeFile(join(workspace, "src", "a.txt"), "one\n");
});

afterEach(async () => {
	await rm(root, { recursive: true, force: true });
});

describe("describeTarget", () => {
	it("names a file by its workspace-relative real path and hashes its content", async () => {
		await symlink(join(workspace, "src", "a.txt"), join(workspace, "link.txt"));
		const direct = await describeTarget(workspace, { kind: "path", value: "src/a.txt" });
		expect(direct).toEqual({ resource: "src/a.txt", kind: "file", digest: sha256("one\n"), content: "one\n" });
		expect(await describeTarget(workspace, { kind: "path", value: join(workspace, "src/../src/a.txt") })).toEqual(direct);
		expect(await describeTarget(workspace, { kind: "path", value: "link.txt" })).toEqual(direct);
	});

	it("says absent for a missing file and changes digest when the content does", async () => {
		expect(await describeTarget(workspace, { kind: "path", value: "new.txt" })).toEqual({ resource: "new.txt", kind: "file", digest: "absent", content: null });
		const before = await describeTarget(workspace, { kind: "path", value: "src/a.txt" });
		await writeFile(join(workspace, "src", "a.txt"), "two\n");
		const after = await describeTarget(workspace, { kind: "path", value: "src/a.txt" });
		expect(after.digest).not.toBe(before.digest);
	});

	it("marks a path outside the workspace and a directory without reading them", async () => {
		expect((await describeTarget(workspace, { kind: "path", value: "../x" })).digest).toBe("unresolvable");
		expect((await describeTarget(workspace, { kind: "path", value: "src" })).digest).toBe("not-a-file:dir");
	});

	it("digests a command by its normalized sub-commands, the same in any workspace", async () => {
		const subcommands = [{ command: "npm test", decision: "ask" as const, layer: "tool-default" as const, reason: "" }];
		const here = await describeTarget(workspace, { kind: "command", value: "FOO=1 npm test" }, subcommands);
		const elsewhere = await describeTarget(root, { kind: "command", value: "FOO=1 npm test" }, subcommands);
		expect(here).toEqual({ resource: "npm test", kind: "command", digest: sha256("command\0npm test") });
		expect(elsewhere).toEqual(here);
		expect(normalizedCommand("  ls  ", undefined)).toBe("ls");
	});
});

describe("argumentsDigest and previewDiff", () => {
	it("hashes arguments independently of key order", () => {
		expect(argumentsDigest({ path: "a", content: "x" })).toBe(argumentsDigest({ content: "x", path: "a" }));
		expect(argumentsDigest({ path: "a", content: "x" })).not.toBe(argumentsDigest({ path: "a", content: "y" }));
	});

	it("shows what a write would change", () => {
		const diff = previewDiff("src/a.txt", "one\n", "two\n");
		expect(diff).toContain("--- a/src/a.txt");
		expect(diff).toContain("-one");
		expect(diff).toContain("+two");
		expect(previewDiff("new.txt", null, "hi\n")).toContain("+hi");
	});
});
