import { beforeAll, describe, expect, it } from "vitest";
import { PermissionEngine } from "./permission-engine.js";
import { type IdentityScope, untrustedProgram } from "./program-identity.js";
import { ShellParser } from "./shell/shell-parser.js";
import { policy, shellTool, WORKSPACE } from "./test-support/policy-fixtures.js";

let parser: ShellParser;
let engine: PermissionEngine;
beforeAll(async () => {
	parser = await ShellParser.create();
	engine = await PermissionEngine.create();
});

/** A host PATH of /usr/bin then the workspace's bin: `evil` is only found in the workspace, `nothere` nowhere. */
const hostPath: Record<string, string> = { ls: "/usr/bin/ls", cat: "/usr/bin/cat", grep: "/usr/bin/grep", env: "/usr/bin/env", git: "/usr/bin/git", bash: "/usr/bin/bash", sudo: "/usr/bin/sudo", xargs: "/usr/bin/xargs", find: "/usr/bin/find", evil: `${WORKSPACE}/bin/evil`, linked: "/home/user/bin/linked" };
const scope: IdentityScope = {
	workspace: WORKSPACE,
	resolveProgram: (name) => hostPath[name],
	resolvePath: (p) => (p === "/home/user/bin/linked" ? `${WORKSPACE}/tools/linked` : p),
};

const why = (source: string): string | undefined => {
	const parsed = parser.parse(source);
	return parsed.commands.map((c) => untrustedProgram(c, parsed, scope)).find((w) => w !== undefined);
};

describe("untrustedProgram", () => {
	it.each(["ls -la", "/usr/bin/ls", "/bin/cat notes.md", "/usr/bin/../bin/ls", "env ls", "/usr/bin/env LC_ALL=C ls", "bash -c 'ls'", "echo hi", "pwd", "test -f x", "git status", "sudo ls", "bash -c 'echo hi'", "command -v ls", "eval echo hi"])(
		"%s runs the system's program",
		(source) => {
			expect(why(source)).toBeUndefined();
		},
	);

	it.each([
		["./ls", "in the workspace"],
		["bin/grep x", "in the workspace"],
		["../ls", "in the workspace"],
		["/tmp/x/cat notes.md", "not in a system program directory"],
		["~/bin/ls", "in the workspace"],
		[`${WORKSPACE}/bin/ls`, "not in a system program directory"],
		["evil", "inside the workspace"],
		["linked", "inside the workspace"],
		["nothere", "not a program found"],
		["PATH=./bin:$PATH ls", "PATH the command sets"],
		["ls() { cat notes.md; }; ls", "shell function"],
		["./env ls", "in the workspace"],
		["env ./ls", "in the workspace"],
		["/tmp/bash -c ls", "not in a system program directory"],
		["xargs ./cat < list", "in the workspace"],
		["find . -exec ./cat {} ;", "in the workspace"],
		["env echo hi", "not a program found"],
		["nice test -f x", "not a program found"],
	])("%s does not (%s)", (source, reason) => {
		expect(why(source)).toContain(reason);
	});

	it("decides on the name alone when the host gives no resolver", () => {
		const parsed = parser.parse("nothere");
		expect(untrustedProgram(parsed.commands[0]!, parsed, { workspace: WORKSPACE })).toBeUndefined();
		const local = parser.parse("./ls");
		expect(untrustedProgram(local.commands[0]!, local, { workspace: WORKSPACE })).toContain("in the workspace");
	});
});

describe("read-only and plan modes trust only the system's programs", () => {
	const ctx = (mode: "read-only" | "plan" | "workspace-write") => policy({ mode, resolveProgram: scope.resolveProgram!, resolvePath: scope.resolvePath! });
	const decide = (command: string, mode: "read-only" | "plan" | "workspace-write") => engine.decide(shellTool(command), { command }, ctx(mode));

	it.each(["./ls", "/tmp/x/cat notes.md", "bin/grep x notes.md", "PATH=./bin:$PATH ls", "evil", "ls() { cat notes.md; }; ls"])("%s is refused in read-only and plan", (command) => {
		const ro = decide(command, "read-only");
		expect(ro.decision, command).toBe("deny");
		expect(decide(command, "plan").decision, command).toBe("deny");
		expect(decide(command, "workspace-write").rule, command).not.toBe("shell(<read-only command>)");
	});

	it("says why in the read-only denial", () => {
		expect(decide("./ls", "read-only").reason).toContain("./ls is a program in the workspace, not the system's");
	});

	it.each(["ls", "/usr/bin/ls -la", "cat notes.md | grep x", "git status"])("%s stays allowed", (command) => {
		expect(decide(command, "read-only").decision, command).toBe("allow");
		expect(decide(command, "plan").decision, command).toBe("allow");
	});
});
