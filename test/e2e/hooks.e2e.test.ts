import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectValidTrace, makeFixture, runPlan } from "./cli-harness.js";

const hooksYaml = (event: string, matcher: string, command: string, timeout = 10) =>
	`hooks:\n  ${event}:\n    - matcher: ${JSON.stringify(matcher)}\n      hooks:\n        - { type: command, command: ${JSON.stringify(command)}, timeout: ${timeout} }\n`;

describe("hooks (end to end, real CLI)", () => {
	it("a user hook blocks a write by exit 2; an untrusted project's hook does not run, and one warning says so", async () => {
		const fx = makeFixture();
		const script = join(fx.dir, "no-secrets.sh");
		writeFileSync(script, '#!/usr/bin/env bash\ninput=$(cat)\ncase "$input" in *secrets/*) echo "secrets/ is off limits" >&2; exit 2;; esac\nexit 0\n');
		const userConfig = join(fx.dir, "user.yaml");
		writeFileSync(userConfig, hooksYaml("PreToolUse", "write_file|edit_file|shell", `bash ${script}`));
		mkdirSync(join(fx.workspace, ".warden"));
		writeFileSync(join(fx.workspace, ".warden", "config.yaml"), hooksYaml("PreToolUse", "", "touch project-hook-ran.txt"));

		const run = await runPlan(
			fx,
			[{ tool_calls: [{ name: "write_file", arguments: { path: "secrets/key.txt", content: "k" } }] }, { tool_calls: [{ name: "write_file", arguments: { path: "notes.txt", content: "n" } }] }, { text: "done" }],
			[],
			{ env: { WARDEN_CONFIG: userConfig } },
		);
		expect(run.code, run.stderr).toBe(0);
		expectValidTrace(run.events);
		expect(existsSync(join(fx.workspace, "secrets", "key.txt"))).toBe(false);
		expect(existsSync(join(fx.workspace, "notes.txt"))).toBe(true);
		expect(existsSync(join(fx.workspace, "project-hook-ran.txt"))).toBe(false);
		const hookRuns = run.events.filter((e) => e.kind === "hook.ran").map((e) => e.payload);
		expect(hookRuns.map((p) => [p.call_id, p.verdict, p.exit_code, p.origin])).toEqual([
			["call_1_1_1", "deny", 2, "user"],
			["call_1_2_1", "none", 0, "user"],
		]);
		expect(run.events.find((e) => e.kind === "tool.denied")?.payload).toMatchObject({ call_id: "call_1_1_1", reason: expect.stringContaining("secrets/ is off limits") });
		const warnings = run.stderr.split("\n").filter((l) => l.includes("hooks"));
		expect(warnings).toEqual([expect.stringMatching(/^warden: warning: ignored hooks \(1 handler\) from project config .*run only in a trusted workspace/)]);
	});

	it("a matcher that is not a regular expression is a one-line config error", async () => {
		const fx = makeFixture();
		const userConfig = join(fx.dir, "user.yaml");
		writeFileSync(userConfig, hooksYaml("PreToolUse", "mcp__(", "true"));
		const run = await runPlan(fx, [{ text: "done" }], [], { env: { WARDEN_CONFIG: userConfig } });
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(/^warden: config .*user\.yaml: hooks\.PreToolUse\[0\]\.matcher "mcp__\(" is not a valid regular expression \(.*\)\n$/);
	});

	it("a trusted project's hook that hangs is killed at its timeout and the call is denied", async () => {
		const fx = makeFixture();
		const userConfig = join(fx.dir, "user.yaml");
		writeFileSync(userConfig, `trusted_projects: [${JSON.stringify(fx.workspace)}]\n`);
		mkdirSync(join(fx.workspace, ".warden"));
		writeFileSync(join(fx.workspace, ".warden", "config.yaml"), hooksYaml("PreToolUse", "write_file", "sleep 60", 1));
		const run = await runPlan(fx, [{ tool_calls: [{ name: "write_file", arguments: { path: "a.txt", content: "x" } }] }, { text: "done" }], [], { env: { WARDEN_CONFIG: userConfig } });
		expect(run.code, run.stderr).toBe(0);
		expectValidTrace(run.events);
		expect(existsSync(join(fx.workspace, "a.txt"))).toBe(false);
		expect(run.events.find((e) => e.kind === "hook.ran")?.payload).toMatchObject({ origin: "project", timed_out: true, verdict: "failed" });
	});
});
