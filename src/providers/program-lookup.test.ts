import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { programLookup } from "./program-lookup.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "warden-lookup-")));
const system = join(root, "system");
const workspace = join(root, "ws");
const program = (dir: string, name: string, mode = 0o755): string => {
	mkdirSync(dir, { recursive: true });
	const path = join(dir, name);
	writeFileSync(path, "#!/bin/sh\n");
	chmodSync(path, mode);
	return path;
};
const ls = program(system, "ls");
program(system, "plain", 0o644);
program(join(workspace, "bin"), "ls");
program(join(workspace, "bin"), "only-here");
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("programLookup", () => {
	it("finds an executable on an absolute PATH entry", () => {
		expect(programLookup(system, workspace)("ls")).toBe(ls);
	});

	it("skips files that are not executable, and names not found", () => {
		expect(programLookup(system, workspace)("plain")).toBeUndefined();
		expect(programLookup(system, workspace)("nothere")).toBeUndefined();
	});

	it("answers nothing when a relative, empty or workspace entry comes first", () => {
		for (const path of [`.:${system}`, `:${system}`, `bin:${system}`, `${join(workspace, "bin")}:${system}`]) {
			expect(programLookup(path, workspace)("ls"), path).toBeUndefined();
		}
		expect(programLookup(`${system}:.`, workspace)("ls")).toBe(ls);
	});

	it("does not resolve paths, only bare names", () => {
		expect(programLookup(system, workspace)("./ls")).toBeUndefined();
		expect(programLookup(undefined, workspace)("ls")).toBeUndefined();
	});
});
