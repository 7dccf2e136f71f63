import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bwrapInvocation } from "./bwrap-invocation.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "warden-bwrap-args-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const ws = join(base, "ws");
const home = join(base, "home");
mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
writeFileSync(join(ws, ".git", "config"), "[core]\n");
mkdirSync(join(ws, ".warden"));
mkdirSync(join(ws, "state"));
mkdirSync(join(home, ".ssh"), { recursive: true });
mkdirSync(join(home, ".config", "gcloud"), { recursive: true });

/** The value after each occurrence of a flag that takes one operand, with its second operand where it has two. */
function pairs(args: string[], flag: string): string[] {
	const out: string[] = [];
	args.forEach((a, i) => {
		if (a === flag) out.push(args[i + 1]!);
	});
	return out;
}

describe("bwrapInvocation", () => {
	it("makes the root read-only, the workspace writable and /tmp private, in that order", () => {
		const { program, args } = bwrapInvocation({ name: "workspace-write", workspace: ws, network: false }, "make", { PATH: "/usr/bin" }, "/usr/bin/bwrap");
		expect(program).toBe("/usr/bin/bwrap");
		expect(args.slice(0, 3)).toEqual(["--ro-bind", "/", "/"]);
		const tmp = args.indexOf("--tmpfs");
		const bind = args.indexOf("--bind");
		expect(args[tmp + 1]).toBe("/tmp");
		expect(args.slice(bind, bind + 3)).toEqual(["--bind", ws, ws]);
		// The workspace comes after the private /tmp, or a workspace under /tmp would vanish under it.
		expect(tmp).toBeLessThan(bind);
		expect(args.slice(-5)).toEqual(["--chdir", ws, "bash", "-c", "make"]);
	});

	it("binds the workspace read-only for the read-only profile", () => {
		const { args } = bwrapInvocation({ name: "read-only", workspace: ws, network: false }, "ls", {});
		expect(args).not.toContain("--bind");
		expect(pairs(args, "--ro-bind")).toContain(ws);
	});

	it("re-binds git hooks, git config, .warden and a protected state dir read-only inside the workspace", () => {
		const protectedRoots = [
			{ path: ".git/hooks", directory: true },
			{ path: ".git/config", directory: false },
			{ path: ".warden", directory: true },
			{ path: ".envrc", directory: false },
		];
		const { args } = bwrapInvocation({ name: "workspace-write", workspace: ws, network: false, protect: [join(ws, "state"), join(base, "elsewhere"), "/nonexistent"], protectedRoots }, "true", {});
		const ro = pairs(args, "--ro-bind");
		for (const p of [".git/hooks", ".git/config", ".warden", "state"]) expect(ro).toContain(join(ws, p));
		// Outside the workspace (already read-only) or missing: nothing to do.
		expect(ro).not.toContain(join(base, "elsewhere"));
		expect(ro).not.toContain("/nonexistent");
		// Absent, and no stand-in was made for it (prepareSandbox makes those): nothing to bind.
		expect(ro).not.toContain(join(ws, ".envrc"));
		// After the writable bind, so they win.
		expect(args.lastIndexOf("--ro-bind")).toBeGreaterThan(args.indexOf("--bind"));
	});

	it("shares the network only when the profile says so", () => {
		const off = bwrapInvocation({ name: "workspace-write", workspace: ws, network: false }, "true", {}).args;
		const on = bwrapInvocation({ name: "workspace-write", workspace: ws, network: true }, "true", {}).args;
		expect(off).toContain("--unshare-all");
		expect(off).not.toContain("--share-net");
		expect(on).toContain("--share-net");
	});

	it("always drops to uid 1000 with no capabilities, a new session and a clean environment", () => {
		const { args } = bwrapInvocation({ name: "workspace-write", workspace: ws, network: false }, "true", { PATH: "/usr/bin", LANG: "C" });
		const joined = args.join(" ");
		expect(joined).toContain("--die-with-parent --new-session --uid 1000 --gid 1000 --cap-drop ALL --clearenv --setenv PATH /usr/bin --setenv LANG C --chdir");
	});

	it("hides the credential stores that exist under home", () => {
		const { args } = bwrapInvocation({ name: "workspace-write", workspace: ws, network: false, home }, "true", {});
		const tmpfs = pairs(args, "--tmpfs");
		expect(tmpfs).toEqual(["/tmp", join(home, ".ssh"), join(home, ".config/gcloud")]);
	});

	it("shows readable host folders read-only over the private /tmp, before the workspace's own bind; absent ones are skipped", () => {
		const { args } = bwrapInvocation({ name: "workspace-write", workspace: ws, network: false, readable: [base, "/nonexistent/code"] }, "true", {});
		const at = args.findIndex((a, i) => a === "--ro-bind" && args[i + 1] === base);
		expect(at).toBeGreaterThan(args.indexOf("--tmpfs"));
		expect(at).toBeLessThan(args.indexOf("--bind"));
		expect(pairs(args, "--ro-bind")).not.toContain("/nonexistent/code");
	});

	it("binds nothing inside a read-only workspace: all of it is read-only already", () => {
		const { args } = bwrapInvocation({ name: "read-only", workspace: ws, network: false, protectedRoots: [{ path: ".git/hooks", directory: true }] }, "true", {});
		expect(pairs(args, "--ro-bind")).not.toContain(join(ws, ".git/hooks"));
	});

	it("refuses a start directory outside the workspace", () => {
		expect(() => bwrapInvocation({ name: "workspace-write", workspace: ws, network: false, cwd: base }, "true", {})).toThrow(/outside the workspace/);
	});
});
