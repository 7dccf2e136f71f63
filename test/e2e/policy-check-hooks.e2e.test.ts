import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Fixture, makeFixture, runCli } from "./cli-harness.js";

const hooksYaml = (matcher: string, command: string, timeout = 10) =>
	`hooks:\n  PreToolUse:\n    - matcher: ${JSON.stringify(matcher)}\n      hooks:\n        - { type: command, command: ${JSON.stringify(command)}, timeout: ${timeout} }\n`;

function script(fx: Fixture, name: string, body: string): string {
	const path = join(fx.dir, name);
	writeFileSync(path, body);
	chmodSync(path, 0o755);
	return path;
}

function configs(fx: Fixture, user: string, project?: string): NodeJS.ProcessEnv {
	const path = join(fx.dir, "user.yaml");
	writeFileSync(path, user);
	if (project !== undefined) {
		mkdirSync(join(fx.workspace, ".warden"), { recursive: true });
		writeFileSync(join(fx.workspace, ".warden", "config.yaml"), project);
	}
	return { WARDEN_CONFIG: path };
}

const check = (fx: Fixture, env: NodeJS.ProcessEnv, extra: string[] = []) =>
	runCli(["policy", "check", "write_file", JSON.stringify({ path: "secrets/key.txt", content: "k" }), "--workspace", fx.workspace, ...extra], { env });

describe("warden policy check with hooks (end to end, real CLI)", () => {
	it("runs the user's bash hook and shows its deny over the policy's allow; --no-hooks shows the policy alone", async () => {
		const fx = makeFixture();
		const sh = script(fx, "no-secrets.sh", '#!/usr/bin/env bash\ninput=$(cat)\ncase "$input" in *secrets/*) echo "secrets/ is off limits" >&2; exit 2;; esac\nexit 0\n');
		const env = configs(fx, hooksYaml("write_file|edit_file", `bash ${sh}`));
		const r = await check(fx, env);
		expect(r.code, r.stderr).toBe(0);
		expect(r.stdout.split("\n")[0]).toBe('DENY write_file {"path":"secrets/key.txt","content":"k"}');
		expect(r.stdout).toMatch(/^ {2}layer {6}hook$/m);
		expect(r.stdout).toMatch(/^ {2}policy {5}allow \(mode-rule\) before hooks$/m);
		expect(r.stdout).toMatch(new RegExp(`^ {2}hook {7}deny bash ${sh.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: exit 2, \\d+ ms, user .*user\\.yaml: hooks\\.PreToolUse\\[0\\]\\.hooks\\[0\\]$`, "m"));
		expect(r.stdout).toMatch(/^ {13}reason {2}secrets\/ is off limits$/m);
		expect(existsSync(join(fx.workspace, "secrets", "key.txt"))).toBe(false);

		const json = JSON.parse((await check(fx, env, ["--json"])).stdout) as { decision: string; hooks: { runs: { verdict: string; exit_code: number }[] } };
		expect(json.decision).toBe("deny");
		expect(json.hooks.runs.map((h) => [h.verdict, h.exit_code])).toEqual([["deny", 2]]);

		const skipped = await check(fx, env, ["--no-hooks", "--json"]);
		expect(JSON.parse(skipped.stdout)).toMatchObject({ decision: "allow", layer: "mode-rule" });
		expect(JSON.parse(skipped.stdout)).not.toHaveProperty("hooks");
	});

	it("runs a project's node hook only once the workspace is trusted, as a session would", async () => {
		const fx = makeFixture();
		const mjs = script(
			fx,
			"ask.mjs",
			// biome-ignore lint/suspicious/noTemplateCurlyInString: the hook script's own template literal, written as source text
			'let s = "";\nprocess.stdin.on("data", (c) => (s += c));\nprocess.stdin.on("end", () => {\n\tconst e = JSON.parse(s);\n\tprocess.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: `review ${e.tool_input.path}` } }));\n});\n',
		);
		const project = hooksYaml("", `${JSON.stringify(process.execPath)} ${mjs}`);
		const untrusted = await check(fx, configs(fx, "{}\n", project), ["--json"]);
		expect(untrusted.code, untrusted.stderr).toBe(0);
		expect(JSON.parse(untrusted.stdout)).toMatchObject({ decision: "allow" });
		expect(JSON.parse(untrusted.stdout)).not.toHaveProperty("hooks");
		expect(untrusted.stderr).toMatch(/ignored hooks \(1 handler\) from project config .*run only in a trusted workspace/);

		const trusted = await check(fx, configs(fx, `trusted_projects: [${JSON.stringify(fx.workspace)}]\n`, project));
		expect(trusted.code, trusted.stderr).toBe(0);
		expect(trusted.stdout.split("\n")[0]).toBe('ASK write_file {"path":"secrets/key.txt","content":"k"}');
		expect(trusted.stdout).toMatch(/^ {2}hook {7}ask .*ask\.mjs: exit 0, \d+ ms, project /m);
		expect(trusted.stdout).toMatch(/^ {13}reason {2}review secrets\/key\.txt$/m);
	});
});
