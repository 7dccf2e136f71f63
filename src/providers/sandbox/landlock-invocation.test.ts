import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { coverExcept, landlockInvocation } from "./landlock-invocation.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "warden-landlock-args-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const ws = join(base, "ws");
const home = join(base, "home");
mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
mkdirSync(join(ws, ".git", "objects"));
writeFileSync(join(ws, ".git", "config"), "");
writeFileSync(join(ws, ".git", "HEAD"), "");
mkdirSync(join(ws, "src"));
writeFileSync(join(ws, "README.md"), "");
symlinkSync("/etc", join(ws, "etc-link"));
mkdirSync(join(home, ".ssh"), { recursive: true });
mkdirSync(join(home, "code"));

const ROOTS = [
	{ path: ".git/hooks", directory: true },
	{ path: ".git/config", directory: false },
	{ path: ".envrc", directory: false },
];

/** The operand of each occurrence of a flag. */
const operands = (args: string[], flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));

describe("coverExcept", () => {
	it("is the whole tree when nothing inside is carved out", () => {
		expect(coverExcept(ws, [])).toEqual([ws]);
		expect(coverExcept(ws, ["/elsewhere/x"])).toEqual([ws]);
	});

	it("covers every entry beside the carved paths and the directories that lead to them, never a link", () => {
		const covered = coverExcept(ws, [join(ws, ".git/hooks"), join(ws, ".git/config"), join(ws, ".envrc")]);
		expect(covered).toEqual([join(ws, ".git/HEAD"), join(ws, ".git/objects"), join(ws, "README.md"), join(ws, "src")]);
	});
});

describe("landlockInvocation", () => {
	it("writes beside the protected paths, in its temp dir and to the usual devices; runs bash -c last", () => {
		const { program, args, env } = landlockInvocation({ name: "workspace-write", workspace: ws, network: false, protectedRoots: ROOTS }, "make", { PATH: "/usr/bin" }, "/x/landlock-exec", "/tmp/t1");
		expect(program).toBe("/x/landlock-exec");
		const writes = operands(args, "--write");
		expect(writes).toEqual(expect.arrayContaining([join(ws, "src"), join(ws, "README.md"), join(ws, ".git/objects"), "/tmp/t1", "/dev/null"]));
		for (const denied of [ws, join(ws, ".git"), join(ws, ".git/hooks"), join(ws, ".git/config"), join(ws, "etc-link")]) expect(writes).not.toContain(denied);
		expect(args).toContain("--no-network");
		expect(args.slice(-4)).toEqual(["--", "bash", "-c", "make"]);
		expect(env).toEqual({ PATH: "/usr/bin", TMPDIR: "/tmp/t1" });
	});

	it("grants nothing in the workspace for the read-only profile, and keeps the network when the profile shares it", () => {
		const { args } = landlockInvocation({ name: "read-only", workspace: ws, network: true, protectedRoots: ROOTS }, "ls", {}, "h", "/tmp/t2");
		expect(operands(args, "--write").filter((p) => p.startsWith(ws))).toEqual([]);
		expect(args).not.toContain("--no-network");
	});

	it("hides the credential stores under home by allowing reads beside them", () => {
		const { args } = landlockInvocation({ name: "workspace-write", workspace: ws, network: false, home }, "true", {}, "h", "/tmp/t3");
		const reads = operands(args, "--read");
		expect(reads).toContain(join(home, "code"));
		expect(reads).not.toContain(join(home, ".ssh"));
		expect(reads).not.toContain(home);
		expect(reads).toContain("/usr");
		expect(operands(args, "--list")).toEqual(["/"]);
	});

	it("refuses a start directory outside the workspace", () => {
		expect(() => landlockInvocation({ name: "workspace-write", workspace: ws, network: false, cwd: base }, "true", {}, "h", "/tmp/t4")).toThrow(/outside the workspace/);
	});
});
