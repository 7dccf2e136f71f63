import { describe, expect, it } from "vitest";
import { bwrapMountArgs } from "./bwrap-mounts.js";

const ws = "/w";

/** The args as [flag, path] pairs (each bind names its path twice). */
function binds(args: string[]): [string, string][] {
	const out: [string, string][] = [];
	for (let i = 0; i < args.length; i += 3) {
		expect(args[i + 1]).toBe(args[i + 2]);
		out.push([args[i]!, args[i + 1]!]);
	}
	return out;
}

describe("bwrapMountArgs", () => {
	it("pins every directory between the workspace and a read-only path, parents first", () => {
		const args = bwrapMountArgs(ws, { readOnly: ["/w/libs/a/.git/hooks", "/w/.git/config"], pinned: [] });
		expect(binds(args)).toEqual([
			["--bind", "/w/.git"],
			["--bind", "/w/libs"],
			["--ro-bind", "/w/.git/config"],
			["--bind", "/w/libs/a"],
			["--bind", "/w/libs/a/.git"],
			["--ro-bind", "/w/libs/a/.git/hooks"],
		]);
	});

	it("pins a directory that must not be replaced, and its parents", () => {
		expect(binds(bwrapMountArgs(ws, { readOnly: [], pinned: ["/w/sub/.git"] }))).toEqual([
			["--bind", "/w/sub"],
			["--bind", "/w/sub/.git"],
		]);
	});

	it("binds nothing inside a read-only path (it is immovable already), nor the workspace, nor outside it", () => {
		const args = bwrapMountArgs(ws, { readOnly: ["/w/.warden", "/w/.warden/skills/x", "/w", "/etc/passwd"], pinned: ["/w/.warden/skills", "/elsewhere/d"] });
		expect(binds(args)).toEqual([["--ro-bind", "/w/.warden"]]);
	});

	it("binds each path once whatever repeats it", () => {
		const args = bwrapMountArgs(ws, { readOnly: ["/w/.git/hooks", "/w/.git/hooks"], pinned: ["/w/.git", "/w/.git"] });
		expect(binds(args)).toEqual([
			["--bind", "/w/.git"],
			["--ro-bind", "/w/.git/hooks"],
		]);
	});
});
