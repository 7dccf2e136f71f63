import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { realPathIfExists } from "./real-path.js";

let root: string;
beforeAll(() => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "warden-real-path-")));
	mkdirSync(join(root, "secret"));
	writeFileSync(join(root, "secret", "key"), "k");
	symlinkSync(join(root, "secret", "key"), join(root, "link"));
	symlinkSync(join(root, "secret"), join(root, "dir-link"));
	symlinkSync(join(root, "missing"), join(root, "dangling"));
	symlinkSync(join(root, "loop-b"), join(root, "loop-a"));
	symlinkSync(join(root, "loop-a"), join(root, "loop-b"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("realPathIfExists", () => {
	it("follows symlinks to files and through linked directories", () => {
		expect(realPathIfExists(join(root, "link"))).toBe(join(root, "secret", "key"));
		expect(realPathIfExists(join(root, "dir-link", "key"))).toBe(join(root, "secret", "key"));
		expect(realPathIfExists(join(root, "secret", "..", "link"))).toBe(join(root, "secret", "key"));
	});

	it("returns a plain path unchanged", () => {
		expect(realPathIfExists(join(root, "secret", "key"))).toBe(join(root, "secret", "key"));
	});

	it("returns undefined for what does not resolve", () => {
		expect(realPathIfExists(join(root, "nothing-here"))).toBeUndefined();
		expect(realPathIfExists(join(root, "dangling"))).toBeUndefined();
		expect(realPathIfExists(join(root, "loop-a"))).toBeUndefined();
	});
});
