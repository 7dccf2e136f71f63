import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/kernel/evidence/store-rows.js";
import { expectValidTrace, type Fixture, link, makeFixture, runCli, runPlan } from "./cli-harness.js";

const ONE_LINE_ERROR = /^warden: [^\n]+\n$/;

/** A user config for this fixture: returns the env that makes the CLI read it. */
function userConfig(fx: Fixture, text: string): { env: NodeJS.ProcessEnv; path: string } {
	const dir = join(fx.dir, "config-home", "warden");
	mkdirSync(dir, { recursive: true });
	const path = join(dir, "config.yaml");
	writeFileSync(path, text);
	return { env: { XDG_CONFIG_HOME: join(fx.dir, "config-home") }, path };
}

function projectConfig(fx: Fixture, text: string): string {
	mkdirSync(join(fx.workspace, ".warden"), { recursive: true });
	const path = join(fx.workspace, ".warden", "config.yaml");
	writeFileSync(path, text);
	return path;
}

function check(fx: Fixture, tool: string, args: unknown, extra: string[] = [], env?: NodeJS.ProcessEnv) {
	return runCli(["policy", "check", tool, typeof args === "string" ? args : JSON.stringify(args), "--workspace", fx.workspace, ...extra], env ? { env } : {});
}

describe("warden policy check (end to end, real CLI)", () => {
	it("explains a hardline denial without running anything", async () => {
		const fx = makeFixture();
		const r = await check(fx, "shell", { command: "env nice /bin/rm -fr ~ && touch ran.txt" }, ["--mode", "full-access", "--allow", "shell"]);
		expect(r.code, r.stderr).toBe(0);
		const lines = r.stdout.split("\n");
		expect(lines[0]).toBe('DENY shell {"command":"env nice /bin/rm -fr ~ && touch ran.txt"}');
		expect(r.stdout).toMatch(/^ {2}layer {6}hardline$/m);
		expect(r.stdout).toMatch(/^ {2}rule {7}hardline:\S+ from built-in hardline rules$/m);
		expect(existsSync(join(fx.workspace, "ran.txt"))).toBe(false);
	});

	it("a run deny beats a host allow, and both rules are named with their sources", async () => {
		const fx = makeFixture();
		const user = userConfig(fx, "rules:\n  allow: ['shell(git push *)']\n");
		const r = await check(fx, "shell", { command: "git push origin main" }, ["--deny", "shell(git push *)"], user.env);
		expect(r.code, r.stderr).toBe(0);
		expect(r.stdout.split("\n")[0]).toBe('DENY shell {"command":"git push origin main"}');
		expect(r.stdout).toContain("  layer      run-deny\n");
		expect(r.stdout).toContain("  rule       shell(git push *) from --deny\n");
		expect(r.stdout).toContain(`  outranked  allow shell(git push *) from user config ${user.path} (host-rule)\n`);
	});

	it("prints each sub-command of a compound command with its own decision and rule", async () => {
		const fx = makeFixture();
		const r = await check(fx, "shell", { command: "git status && npm test | tee log.txt && rm -rf build" }, ["--allow", "shell(npm test)"]);
		expect(r.code, r.stderr).toBe(0);
		expect(r.stdout.split("\n")[0]).toMatch(/^DENY shell /);
		const subs = r.stdout.split("\n").filter((l) => /^ {4}\d+\. /.test(l));
		expect(subs).toHaveLength(4);
		expect(subs[0]).toMatch(/^ {4}1\. allow "git status" +mode-rule: shell\(<read-only command>\) from mode:workspace-write$/);
		expect(subs[1]).toMatch(/^ {4}2\. allow "npm test" +host-rule: shell\(npm test\) from --allow$/);
		// tee writes only in the workspace and reaches no network: the workspace-write sandbox confines it.
		expect(subs[2]).toMatch(/^ {4}3\. allow "tee log\.txt" +mode-rule: shell\(<confined by the sandbox>\) from mode:workspace-write$/);
		expect(subs[3]).toMatch(/^ {4}4\. deny {2}"rm -f -r build" +mode-rule: shell\(<destructive command>\) from mode:workspace-write$/);
	});

	it("decides a path rule through a symlink the same way warden run does", async () => {
		const fx = makeFixture({ "secret/key.txt": "k\n" });
		link(join(fx.workspace, "secret"), join(fx.workspace, "docs"));
		const flags = ["--deny", "write_file(secret/**)", "--allow", "write_file(docs/**)"];
		const call = { path: "docs/key.txt", content: "overwritten\n" };
		const r = await check(fx, "write_file", call, [...flags, "--json"]);
		expect(r.code, r.stderr).toBe(0);
		const explained = JSON.parse(r.stdout);
		expect(explained.decision).toBe("deny");
		expect(explained.reason).toContain("(real path secret/key.txt)");
		expect(explained.rule).toEqual({ text: "write_file(secret/**)", source: "--deny" });

		const run = await runPlan(fx, [{ tool_calls: [{ name: "write_file", arguments: call }] }, { text: "ok" }], flags);
		expectValidTrace(run.events);
		const decided = run.events.find((e) => e.kind === "permission.decided");
		expect(decided?.kind === "permission.decided" && [decided.payload.decision, decided.payload.layer, decided.payload.reason, decided.payload.rule]).toEqual([
			explained.decision,
			explained.layer,
			explained.reason,
			explained.rule.text,
		]);
	});

	it("--json prints one object: the decision, its rule and source, sub-commands, outranked rules and the config used", async () => {
		const fx = makeFixture();
		const project = projectConfig(fx, "rules:\n  allow: ['shell(*)']\n  ask: ['shell(git *)']\n");
		const r = await check(fx, "shell", { command: "git log" }, ["--json"]);
		expect(r.code, r.stderr).toBe(0);
		expect(r.stdout.trim().split("\n")).toHaveLength(1);
		const out = JSON.parse(r.stdout);
		expect(Object.keys(out)).toEqual(["tool", "arguments", "verdict", "decision", "layer", "reason", "rule", "subcommands", "shadowed", "capability", "workspace", "mode", "on_ask", "config"]);
		expect(out).toMatchObject({
			tool: "shell",
			arguments: { command: "git log" },
			decision: "ask",
			layer: "host-rule",
			rule: { text: "shell(git *)", source: `project config ${project}` },
			shadowed: [],
			workspace: fx.workspace,
			mode: { value: "workspace-write", source: "default" },
			on_ask: { value: "deny", source: "default" },
			config: { trusted_project: false, layers: [{ name: "project", source: `project config ${project}`, path: project }] },
		});
		expect(out.subcommands).toEqual([{ command: "git log", decision: "ask", layer: "host-rule", reason: out.reason, rule: out.rule, shadowed: [] }]);
		expect(out.config.ignored).toEqual([{ item: "rules.allow[0] shell(*)", source: `project config ${project}`, why: expect.stringContaining("trusted_projects") }]);
		expect(r.stderr).toBe(`warden: warning: ignored rules.allow[0] shell(*) from project config ${project}: ${out.config.ignored[0].why}\n`);
	});

	it("usage errors exit 2 with one line: unknown tool, arguments that are not JSON or not valid, a bad flag or config", async () => {
		const fx = makeFixture();
		const cases: [string[], string][] = [
			[["policy", "check", "launch_missiles", "{}", "--workspace", fx.workspace], 'unknown tool "launch_missiles"'],
			[["policy", "check", "shell", "{command:", "--workspace", fx.workspace], "<args-json> is not valid JSON"],
			[["policy", "check", "write_file", '{"path":"a"}', "--workspace", fx.workspace], 'write_file: is missing required property "content"'],
			[["policy", "check", "shell", '{"command":7}', "--workspace", fx.workspace], "shell: /command must be string"],
			[["policy", "check", "shell", '{"command":"ls"}', "--workspace", fx.workspace, "--mode", "yolo"], "--mode must be one of"],
			[["policy", "check", "shell", '{"command":"ls"}', "--workspace", join(fx.dir, "nope")], "does not exist"],
		];
		for (const [args, message] of cases) {
			const r = await runCli(args);
			expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
			expect(r.stderr).toMatch(ONE_LINE_ERROR);
			expect(r.stderr).toContain(message);
			expect(r.stdout).toBe("");
		}
		// Commander's own one-line message for a missing argument.
		const missing = await runCli(["policy", "check", "shell"]);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toBe("error: missing required argument 'args-json'\n");
		projectConfig(fx, "rules:\n  allow: ['read_file', 42]\n");
		const bad = await check(fx, "shell", { command: "ls" });
		expect(bad.code).toBe(2);
		expect(bad.stderr).toBe(`warden: config ${join(fx.workspace, ".warden", "config.yaml")}: rules.allow[1] must be a string, got number 42\n`);
	});
});

describe("warden run with a project config (end to end)", () => {
	const steps = [{ tool_calls: [{ name: "shell", arguments: { command: "touch made.txt" } }] }, { text: "ok" }];

	it("an untrusted project's allow rule is ignored, warned about and audited; trusting the workspace makes it count", async () => {
		const untrusted = makeFixture();
		const project = projectConfig(untrusted, "rules:\n  allow: ['shell(touch *)']\non_ask: allow\n");
		// In the workspace-write sandbox a plain touch runs unasked: a host ask rule stands for the ask.
		const r1 = await runPlan(untrusted, steps, ["--ask", "shell(touch *)"]);
		expect(r1.code, r1.stderr).toBe(0);
		expectValidTrace(r1.events);
		const d1 = r1.events.find((e) => e.kind === "permission.decided");
		expect(d1?.kind === "permission.decided" && d1.payload.decision).toBe("ask");
		expect(existsSync(join(untrusted.workspace, "made.txt"))).toBe(false);
		expect(r1.stderr).toContain(`warden: warning: ignored rules.allow[0] shell(touch *) from project config ${project}: `);
		expect(r1.stderr).toContain(`warden: warning: ignored on_ask: allow from project config ${project}: `);
		const audit = await runCli(["audit", "list", "--json", "--state-dir", untrusted.stateDir]);
		const started = audit.stdout
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l))
			.find((rec) => rec.kind === "session.started");
		expect(started.data.config_ignored.map((n: { item: string }) => n.item)).toEqual(["rules.allow[0] shell(touch *)", "on_ask: allow"]);

		const trusted = makeFixture();
		const trustedProject = projectConfig(trusted, "rules:\n  allow: ['shell(touch *)']\n");
		const user = userConfig(trusted, `trusted_projects: [${JSON.stringify(trusted.workspace)}]\n`);
		const r2 = await runPlan(trusted, steps, [], { env: user.env });
		expect(r2.code, r2.stderr).toBe(0);
		expectValidTrace(r2.events);
		const d2 = r2.events.find((e) => e.kind === "permission.decided");
		expect(d2?.kind === "permission.decided" && [d2.payload.decision, d2.payload.reason]).toEqual([
			"allow",
			`host rule shell(touch *) (allow, project config ${trustedProject}) matched "touch made.txt"`,
		]);
		expect(existsSync(join(trusted.workspace, "made.txt"))).toBe(true);
		expect(r2.stderr).toBe("");

		// --no-project-config: the trusted project's rule is not read at all.
		const r3 = await runPlan(trusted, steps, ["--no-project-config", "--ask", "shell(touch *)"], { env: user.env });
		const d3 = r3.events.find((e) => e.kind === "permission.decided");
		expect(d3?.kind === "permission.decided" && d3.payload.decision).toBe("ask");
	});
});

describe("warden policy check: approved rules and the capability verdict (end to end, real CLI)", () => {
	it("names a persisted always-allow by its id, and the grant or ceiling that decides at the primitive", async () => {
		const fx = makeFixture({ "src/a.ts": "export {};\n" });
		const store = openSqliteStore(fx.stateDir);
		const rule = await store.addApprovedRule({
			tool: "shell",
			pattern: "touch made.txt",
			outcome: "allow",
			workspace: fx.workspace,
			created_at: "2025-03-01T10:00:00.000Z",
			created_by: "alice",
			session: "s0",
		});
		await store.close();

		const approved = await check(fx, "shell", { command: "touch made.txt" }, ["--state-dir", fx.stateDir]);
		expect(approved.code, approved.stderr).toBe(0);
		expect(approved.stdout.split("\n")[0]).toBe('ALLOW shell {"command":"touch made.txt"}');
		expect(approved.stdout).toContain(`  rule       shell(touch made.txt) from approved rule #${rule.id}\n`);
		expect(approved.stdout).toContain("  capability exec shell:touch made.txt: allowed by grant mode:workspace-write:shell (preset workspace-write)\n");
		expect(approved.stdout).toContain("  capability write fs:made.txt: allowed by grant mode:workspace-write:fs (preset workspace-write)\n");
		expect(existsSync(join(fx.workspace, "made.txt"))).toBe(false);

		// An untrusted project narrows with a ceiling (its grant is ignored and reported); the rules still allow.
		projectConfig(fx, "ceiling:\n  effects: [{ resource: 'fs:src/**', rights: [read] }]\ngrants:\n  - { resource: 'shell:*', rights: [exec] }\n");
		const narrowed = await check(fx, "shell", { command: "touch made.txt" }, ["--state-dir", fx.stateDir, "--json"]);
		expect(narrowed.code, narrowed.stderr).toBe(0);
		expect(narrowed.stderr).toMatch(/ignored grants\[0\] shell:\* from project config .*grants from a project add authority/);
		const report = JSON.parse(narrowed.stdout);
		expect(report).toMatchObject({ decision: "allow", rule: { source: `approved rule #${rule.id}` } });
		// The file touch creates is an fs write the ceiling bounds too.
		expect(report.capability).toMatchObject({
			admitted: false,
			checks: [
				{ resource: "shell:touch made.txt", right: "exec", reason: "ceiling" },
				{ resource: "fs:made.txt", right: "write", reason: "ceiling" },
			],
		});
		const read = await check(fx, "read_file", { path: "src/a.ts" }, ["--state-dir", fx.stateDir]);
		expect(read.stdout).toContain("  capability read fs:src/a.ts: allowed by grant mode:workspace-write:fs (preset workspace-write)\n");
	});
});
