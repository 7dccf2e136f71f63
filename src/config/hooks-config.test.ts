import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Runtime } from "../runtime/runtime.js";
import { ScriptedModel } from "../models/scripted.js";
import { ConfigError } from "./config-error.js";
import { resolveConfig } from "./resolve-config.js";
import { configFixture } from "./test-support/config-fixture.js";

const block = (command: string, matcher = "write_file|edit_file") =>
	`hooks:\n  PreToolUse:\n    - matcher: ${JSON.stringify(matcher)}\n      hooks:\n        - type: command\n          command: ${JSON.stringify(command)}\n          timeout: 5\n`;

describe("hooks in the config layers", () => {
	it("reads the user's hooks in Claude Code's shape, each handler naming its field", async () => {
		const f = configFixture({ user: block("./check.sh") });
		const config = await resolveConfig({ workspace: f.workspace, env: f.env });
		expect(config.hooks).toEqual([
			{ event: "PreToolUse", matcher: "write_file|edit_file", command: "./check.sh", timeoutMs: 5000, origin: "user", source: `user config ${f.userPath}: hooks.PreToolUse[0].hooks[0]` },
		]);
	});

	it("a handler without a timeout gets Claude Code's 60 s", async () => {
		const f = configFixture({ user: "hooks:\n  Stop:\n    - hooks: [{ type: command, command: echo }]\n" });
		const config = await resolveConfig({ workspace: f.workspace, env: f.env });
		expect(config.hooks).toMatchObject([{ event: "Stop", matcher: "", timeoutMs: 60_000 }]);
	});

	it("a project's hooks are left out, with one note, until the workspace is trusted; then they run after the user's", async () => {
		const project = `${block("./p1.sh")}  PostToolUse:\n    - hooks: [{ type: command, command: ./p2.sh }]\n`;
		const untrusted = configFixture({ user: block("./mine.sh"), project });
		const before = await resolveConfig({ workspace: untrusted.workspace, env: untrusted.env });
		expect(before.hooks?.map((h) => h.command)).toEqual(["./mine.sh"]);
		expect(before.ignored.filter((n) => n.item.startsWith("hooks"))).toEqual([
			{ item: "hooks (2 handlers)", source: expect.stringContaining("project config"), why: expect.stringContaining("run only in a trusted workspace") },
		]);

		const trusted = configFixture({ user: `trusted_projects: [<ws>]\n${block("./mine.sh")}`, project });
		const after = await resolveConfig({ workspace: trusted.workspace, env: trusted.env });
		expect(after.hooks?.map((h) => [h.command, h.origin])).toEqual([
			["./mine.sh", "user"],
			["./p1.sh", "project"],
			["./p2.sh", "project"],
		]);
		expect(after.ignored).toEqual([]);
	});

	const errors: [what: string, yaml: string, message: RegExp][] = [
		["a matcher that is not a regular expression", block("x", "write_file("), /hooks\.PreToolUse\[0\]\.matcher "write_file\(" is not a valid regular expression/],
		["an unknown event", "hooks:\n  BeforeEverything: []\n", /hooks\.BeforeEverything is not a known key/],
		["a handler type other than command", "hooks:\n  Stop:\n    - hooks: [{ type: prompt, command: x }]\n", /hooks\.Stop\[0\]\.hooks\[0\]\.type must be one of command/],
		["a handler without a command", "hooks:\n  Stop:\n    - hooks: [{ type: command }]\n", /must have required property 'command'/],
		["a timeout of zero", "hooks:\n  Stop:\n    - hooks: [{ type: command, command: x, timeout: 0 }]\n", /timeout must be > 0/],
	];
	for (const [what, yaml, message] of errors) {
		it(`${what} is a one-line config error naming the file`, async () => {
			const f = configFixture({ user: yaml });
			const err = await resolveConfig({ workspace: f.workspace, env: f.env }).catch((e: unknown) => e);
			expect(err).toBeInstanceOf(ConfigError);
			expect((err as Error).message).toMatch(message);
			expect((err as Error).message).toContain(f.userPath);
			expect((err as Error).message).not.toContain("\n");
		});
	}

	it("an untrusted project's hook never runs in a session opened from the config", async () => {
		const marker = "hook-ran.txt";
		const f = configFixture({ project: block(`touch ${marker}`, "") });
		const config = await resolveConfig({ workspace: f.workspace, env: f.env });
		const runtime = await Runtime.open({ stateDir: join(f.workspace, "..", "state"), env: process.env });
		try {
			const model = ScriptedModel.fromPlan({ steps: [{ tool_calls: [{ name: "write_file", arguments: { path: "a.txt", content: "x" } }] }, { text: "done" }] }, "scripted:test");
			const session = await runtime.openSession({ workspace: config.workspace, model, ...(config.hooks ? { hooks: config.hooks } : {}), configNotes: config.ignored });
			await session.send("go");
			await session.end();
			expect(existsSync(join(realpathSync(f.workspace), "a.txt"))).toBe(true);
			expect(existsSync(join(realpathSync(f.workspace), marker))).toBe(false);
			const started = (await runtime.listAudit({ session: session.id })).find((r) => r.kind === "session.started")!;
			expect(JSON.stringify(started.data.config_ignored)).toContain("hooks (1 handler)");
			expect(readFileSync(join(f.workspace, "a.txt"), "utf8")).toBe("x");
		} finally {
			await runtime.close();
		}
	});
});
