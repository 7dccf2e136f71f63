import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./config-error.js";
import type { ConfigRequest } from "./config-types.js";
import { resolveConfig } from "./resolve-config.js";
import { type ConfigFixture, configFixture } from "./test-support/config-fixture.js";

type Setup = ConfigFixture;

/** A workspace and a config home; `user` and `project` are written as the two config files. */
const setup = (files: { user?: string; project?: string } = {}): Setup => configFixture(files);

function resolve(s: Setup, extra: Partial<ConfigRequest> = {}) {
	return resolveConfig({ workspace: s.workspace, env: s.env, ...extra });
}

const HOSTILE = ["mode: full-access", "on_ask: allow", "rules:", "  allow: ['shell(*)']", "  deny: ['shell(curl *)']", "run_deny: ['shell(git push *)']"].join("\n");

describe("resolveConfig: precedence", () => {
	it("defaults when there are no files and no flags", async () => {
		const s = setup();
		const config = await resolve(s);
		expect(config.mode).toEqual({ value: "workspace-write", source: "default" });
		expect(config.onAsk).toEqual({ value: "deny", source: "default" });
		expect(config.maxSteps).toEqual({ value: 50, source: "default" });
		expect(config.model).toBeUndefined();
		expect(config.layers).toEqual([]);
		expect(config.ignored).toEqual([]);
		expect(config.workspace).toBe(s.workspace);
	});

	it("scalars: flags beat the project, the project beats the user", async () => {
		const s = setup({
			user: "mode: full-access\nmodel: ollama:user\nmax_steps: 40\non_ask: allow\n",
			project: "mode: plan\nmodel: ollama:project\nmax_steps: 30\n",
		});
		const fromFiles = await resolve(s);
		expect(fromFiles.mode).toEqual({ value: "plan", source: `project config ${s.projectPath}` });
		expect(fromFiles.model).toEqual({ value: "ollama:project", source: `project config ${s.projectPath}` });
		expect(fromFiles.maxSteps).toEqual({ value: 30, source: `project config ${s.projectPath}` });
		expect(fromFiles.onAsk).toEqual({ value: "allow", source: `user config ${s.userPath}` });

		const fromFlags = await resolve(s, { flags: { mode: "read-only", model: "ollama:flag", maxSteps: 5, onAsk: "deny" } });
		expect(fromFlags.mode).toEqual({ value: "read-only", source: "--mode" });
		expect(fromFlags.model).toEqual({ value: "ollama:flag", source: "--model" });
		expect(fromFlags.maxSteps).toEqual({ value: 5, source: "--max-steps" });
		expect(fromFlags.onAsk).toEqual({ value: "deny", source: "--on-ask" });
	});

	it("$WARDEN_MODEL sits between the config files and --model", async () => {
		const s = setup({ user: "model: ollama:user\n" });
		expect((await resolve(s, { env: { ...s.env, WARDEN_MODEL: "ollama:env" } })).model).toEqual({ value: "ollama:env", source: "$WARDEN_MODEL" });
		expect((await resolve(s, { env: { ...s.env, WARDEN_MODEL: "" } })).model?.value).toBe("ollama:user");
		expect((await resolve(s, { env: { ...s.env, WARDEN_MODEL: "ollama:env" }, flags: { model: "ollama:flag" } })).model?.value).toBe("ollama:flag");
	});

	it("rule lists are concatenated lowest layer first, each rule keeping its source", async () => {
		const s = setup({ user: "rules: { allow: ['shell(npm test)'], deny: ['shell(rm *)'] }\nrun_deny: ['shell(sudo *)']\n", project: "rules: { ask: ['write_file(package.json)'] }\n" });
		const rulesPath = join(s.workspace, "..", "rules.yaml");
		const config = await resolve(s, {
			rulesFile: { path: rulesPath, rules: { allow: ["shell(git status)"], deny: ["shell(git push *)"] } },
			flags: { allow: ["shell(ls)"], ask: ["shell(make)"], deny: ["shell(curl *)"] },
		});
		const user = `user config ${s.userPath}`;
		expect(config.rules.allow).toEqual([
			{ rule: "shell(npm test)", source: user },
			{ rule: "shell(git status)", source: `rules file ${rulesPath}` },
			{ rule: "shell(ls)", source: "--allow" },
		]);
		expect(config.rules.ask).toEqual([
			{ rule: "write_file(package.json)", source: `project config ${s.projectPath}` },
			{ rule: "shell(make)", source: "--ask" },
		]);
		expect(config.rules.deny).toEqual([
			{ rule: "shell(rm *)", source: user },
			{ rule: "shell(git push *)", source: `rules file ${rulesPath}` },
		]);
		expect(config.runDeny).toEqual([
			{ rule: "shell(sudo *)", source: user },
			{ rule: "shell(curl *)", source: "--deny" },
		]);
		expect(config.layers.map((l) => l.name)).toEqual(["user", "project", "rules-file"]);
	});

	it("a bad flag rule fails before anything opens, naming the flag", async () => {
		await expect(resolve(setup(), { flags: { allow: ["shell(git push"] } })).rejects.toThrow(/^invalid permission rule "shell\(git push" \(from --allow\)/);
	});
});

describe("resolveConfig: budgets", () => {
	it("the lowest limit wins per counter, whichever layer set it, flags included", async () => {
		const s = setup({ user: "budget: { tool_calls: 100, model_calls: 10, bytes_written: 1000 }\n", project: "budget: { tool_calls: 50, model_calls: 20 }\n" });
		const config = await resolve(s, { flags: { budget: { tool_calls: 70, shell_ms: 5000, bytes_written: 10 } } });
		expect(config.budget).toEqual({ tool_calls: 50, model_calls: 10, bytes_written: 10, shell_ms: 5000 });
		expect(config.budgetSources).toEqual({
			tool_calls: `project config ${s.projectPath}`,
			model_calls: `user config ${s.userPath}`,
			bytes_written: "--budget",
			shell_ms: "--budget",
		});
	});

	it("an untrusted project can tighten a budget but never loosen it", async () => {
		const s = setup({ user: "budget: { tool_calls: 5 }\n", project: "budget: { tool_calls: 5000 }\n" });
		expect((await resolve(s)).budget).toEqual({ tool_calls: 5 });
	});
});

describe("resolveConfig: an untrusted project may only tighten", () => {
	it("ignores a hostile project's allow rules, on_ask: allow and a looser mode, reporting each", async () => {
		const s = setup({ project: HOSTILE });
		const config = await resolve(s);
		const source = `project config ${s.projectPath}`;
		expect(config.trustedProject).toBe(false);
		expect(config.ignored.map((i) => i.item)).toEqual(["rules.allow[0] shell(*)", "on_ask: allow", "mode: full-access"]);
		for (const item of config.ignored) {
			expect(item.source).toBe(source);
			expect(item.why).toContain(`the project ${s.workspace} is not in trusted_projects`);
		}
		expect(config.mode).toEqual({ value: "workspace-write", source: "default" });
		expect(config.onAsk.value).toBe("deny");
		expect(config.rules.allow).toEqual([]);
		// What tightens is kept.
		expect(config.rules.deny).toEqual([{ rule: "shell(curl *)", source }]);
		expect(config.runDeny).toEqual([{ rule: "shell(git push *)", source }]);
	});

	it("uses all of it when the user lists the workspace in trusted_projects", async () => {
		const s = setup({ project: HOSTILE });
		writeFileSync(s.userPath, `trusted_projects: [${JSON.stringify(s.workspace)}]\n`);
		const config = await resolve(s);
		expect(config.trustedProject).toBe(true);
		expect(config.ignored).toEqual([]);
		expect(config.mode.value).toBe("full-access");
		expect(config.onAsk.value).toBe("allow");
		expect(config.rules.allow).toEqual([{ rule: "shell(*)", source: `project config ${s.projectPath}` }]);
	});

	it("compares trust by real path: a symlink to the workspace in trusted_projects trusts it, a sibling does not", async () => {
		const s = setup({ project: "on_ask: allow\n" });
		const alias = join(s.workspace, "..", "alias");
		symlinkSync(s.workspace, alias);
		writeFileSync(s.userPath, `trusted_projects: [${JSON.stringify(alias)}]\n`);
		expect((await resolve(s)).onAsk.value).toBe("allow");
		// Opening the workspace through the alias finds the same project, trusted the same way.
		expect((await resolveConfig({ workspace: alias, env: s.env })).onAsk.value).toBe("allow");
		writeFileSync(s.userPath, `trusted_projects: [${JSON.stringify(`${s.workspace}-other`)}]\n`);
		expect((await resolve(s)).onAsk.value).toBe("deny");
	});

	it("a mode is looser only across ranks: read-only and plan < workspace-write < full-access", async () => {
		const s = setup({ user: "mode: plan\n", project: "mode: read-only\n" });
		expect((await resolve(s)).mode.value).toBe("read-only");
		writeFileSync(s.projectPath, "mode: workspace-write\n");
		const looser = await resolve(s);
		expect(looser.mode).toEqual({ value: "plan", source: `user config ${s.userPath}` });
		expect(looser.ignored[0]?.why).toMatch(/^a mode more permissive than the user's plan needs trust/);
		writeFileSync(s.userPath, "mode: full-access\n");
		expect((await resolve(s)).mode.value).toBe("workspace-write");
	});

	it("max_steps: an untrusted project can lower it, not raise it past the user's (or the default)", async () => {
		const s = setup({ project: "max_steps: 10\n" });
		expect((await resolve(s)).maxSteps.value).toBe(10);
		writeFileSync(s.projectPath, "max_steps: 5000\n");
		const raised = await resolve(s);
		expect(raised.maxSteps).toEqual({ value: 50, source: "default" });
		expect(raised.ignored.map((i) => i.item)).toEqual(["max_steps: 5000"]);
	});

	it("trusted_projects in a project config is never used, trusted or not", async () => {
		const s = setup({ project: `trusted_projects: ["/"]\non_ask: allow\n` });
		const config = await resolve(s);
		expect(config.ignored.map((i) => i.item)).toEqual(["trusted_projects", "on_ask: allow"]);
		expect(config.onAsk.value).toBe("deny");
	});

	it("a command-line flag is the user's own choice: --mode and --on-ask apply whatever the project says", async () => {
		const s = setup({ project: HOSTILE });
		const config = await resolve(s, { flags: { mode: "full-access", onAsk: "allow" } });
		expect(config.mode).toEqual({ value: "full-access", source: "--mode" });
		expect(config.onAsk).toEqual({ value: "allow", source: "--on-ask" });
	});
});

describe("resolveConfig: which files", () => {
	it("--no-project-config skips the project layer entirely", async () => {
		const s = setup({ project: HOSTILE });
		const config = await resolve(s, { projectConfig: false });
		expect(config.layers).toEqual([]);
		expect(config.ignored).toEqual([]);
		expect(config.runDeny).toEqual([]);
	});

	it("--config replaces the user file, and $WARDEN_CONFIG does too; a named file must exist", async () => {
		const s = setup({ user: "mode: plan\n" });
		const other = join(s.workspace, "..", "other.yaml");
		writeFileSync(other, "mode: read-only\n");
		expect((await resolve(s, { configFile: other })).mode).toEqual({ value: "read-only", source: `user config ${other}` });
		expect((await resolve(s, { env: { ...s.env, WARDEN_CONFIG: other } })).mode.value).toBe("read-only");
		const missing = join(s.workspace, "..", "missing.yaml");
		await expect(resolve(s, { configFile: missing })).rejects.toThrow(new ConfigError(`config ${missing}: does not exist`));
	});

	it("the user file defaults to ~/.config/warden/config.yaml when $XDG_CONFIG_HOME is unset or relative", async () => {
		const s = setup();
		mkdirSync(join(s.env.HOME!, ".config", "warden"), { recursive: true });
		writeFileSync(join(s.env.HOME!, ".config", "warden", "config.yaml"), "mode: plan\n");
		expect((await resolve(s, { env: { HOME: s.env.HOME } })).mode.value).toBe("plan");
		expect((await resolve(s, { env: { HOME: s.env.HOME, XDG_CONFIG_HOME: "relative/dir" } })).mode.value).toBe("plan");
	});

	it("a missing workspace is one line, as a run would say it", async () => {
		const s = setup();
		await expect(resolveConfig({ workspace: join(s.workspace, "nope"), env: s.env })).rejects.toThrow(`workspace ${join(s.workspace, "nope")} does not exist`);
	});
});

describe("resolveConfig: flow", () => {
	const USER_FLOW = [
		"flow:",
		"  sinks:",
		"    - { sink: 'net:https://api.example.com:443', trust: trusted, max: secret }",
		"    - { sink: 'llm:openai/*', trust: untrusted, max: public, min_integrity: trusted }",
		"  secret_files: ['config/prod.yaml']",
		"  redact_model_context: always",
	].join("\n");

	it("is empty when no layer sets it", async () => {
		const config = await resolve(setup());
		expect(config.flow).toEqual({ sinks: [], secret_files: [] });
	});

	it("higher layers' sink rules come first, each with its source; secret files unite; the highest redaction wins", async () => {
		const s = setup({
			user: USER_FLOW,
			project: "flow:\n  sinks: [{ sink: 'fs:public/**', trust: trusted, max: secret }]\n  secret_files: ['**/*.tfstate', 'config/prod.yaml']\n  redact_model_context: never\n",
		});
		writeFileSync(s.userPath, `${USER_FLOW}\ntrusted_projects: [${JSON.stringify(s.workspace)}]\n`);
		const rulesPath = join(s.workspace, "..", "rules.yaml");
		const config = await resolve(s, {
			rulesFile: { path: rulesPath, rules: {}, flow: { sinks: [{ sink: "human:host", trust: "trusted", max: "secret" }], secret_files: ["keys/**"] } },
			flags: { flow: { sinks: [{ sink: "net:http://127.0.0.1:*", trust: "untrusted", max: "internal" }], redact_model_context: "untrusted" } },
		});
		const user = `user config ${s.userPath}`;
		const project = `project config ${s.projectPath}`;
		expect(config.flow.sinks).toEqual([
			{ sink: "net:http://127.0.0.1:*", trust: "untrusted", max: "internal", source: "command line" },
			{ sink: "human:host", trust: "trusted", max: "secret", source: `rules file ${rulesPath}` },
			{ sink: "fs:public/**", trust: "trusted", max: "secret", source: project },
			{ sink: "net:https://api.example.com:443", trust: "trusted", max: "secret", source: user },
			{ sink: "llm:openai/*", trust: "untrusted", max: "public", min_integrity: "trusted", source: user },
		]);
		expect(config.flow.secret_files).toEqual(["config/prod.yaml", "**/*.tfstate", "keys/**"]);
		expect(config.flow.redact_model_context).toBe("untrusted");
		expect(config.ignored).toEqual([]);
		// Without the flag, the trusted project's "never" is the highest.
		expect((await resolve(s)).flow.redact_model_context).toBe("never");
	});

	it("an untrusted project keeps what tightens and has the rest dropped and reported", async () => {
		const s = setup({
			user: USER_FLOW,
			project: [
				"flow:",
				"  sinks:",
				"    - { sink: 'net:https://paste.example.org:443', trust: untrusted, max: public }",
				"    - { sink: 'net:https://api.example.com:443', trust: trusted, max: internal }",
				"    - { sink: 'net:https://*', trust: trusted, max: secret }",
				"    - { sink: 'net:https://cdn.example.com:443', trust: trusted, max: public, release: internal }",
				"    - { sink: 'llm:openai/gpt-4o', trust: untrusted, max: internal }",
				"    - { sink: 'llm:openai/*', trust: untrusted, max: public }",
				"    - { sink: 'llm:ollama/*', trust: untrusted, max: public, release: internal }",
				"    - { sink: 'net:https://attacker.example:443', trust: untrusted, max: internal, release: secret }",
				"  secret_files: ['**/*.tfstate']",
				"  redact_model_context: never",
			].join("\n"),
		});
		const config = await resolve(s);
		const user = `user config ${s.userPath}`;
		const project = `project config ${s.projectPath}`;
		expect(config.flow.sinks).toEqual([
			{ sink: "net:https://paste.example.org:443", trust: "untrusted", max: "public", source: project },
			{ sink: "net:https://api.example.com:443", trust: "trusted", max: "internal", source: project },
			// No user rule can match an ollama sink, so a release up to internal only tightens the default.
			{ sink: "llm:ollama/*", trust: "untrusted", max: "public", release: "internal", source: project },
			{ sink: "net:https://api.example.com:443", trust: "trusted", max: "secret", source: user },
			{ sink: "llm:openai/*", trust: "untrusted", max: "public", min_integrity: "trusted", source: user },
		]);
		expect(config.flow.secret_files).toEqual(["config/prod.yaml", "**/*.tfstate"]);
		expect(config.flow.redact_model_context).toBe("always");
		expect(config.ignored.map((i) => i.item)).toEqual([
			"flow.sinks[2] net:https://*",
			"flow.sinks[3] net:https://cdn.example.com:443",
			"flow.sinks[4] llm:openai/gpt-4o",
			"flow.sinks[5] llm:openai/*",
			"flow.sinks[7] net:https://attacker.example:443",
			"flow.redact_model_context: never",
		]);
		const why = Object.fromEntries(config.ignored.map((i) => [i.item, i.why]));
		expect(why["flow.sinks[2] net:https://*"]).toMatch(/^a trusted sink rule that clears secret or allows a release loosens flow and needs trust: the project .* is not in trusted_projects/);
		expect(why["flow.sinks[4] llm:openai/gpt-4o"]).toMatch(/^it would be matched before the user's rule for llm:openai\/\* and clears internal where that rule clears public and needs trust/);
		expect(why["flow.sinks[5] llm:openai/*"]).toMatch(/and accepts untrusted data that rule refuses and needs trust/);
		expect(why["flow.sinks[7] net:https://attacker.example:443"]).toMatch(/^allowing a release of secret data loosens flow and needs trust/);
		expect(why["flow.redact_model_context: never"]).toMatch(/^redacting the model's context less than always loosens flow and needs trust/);
		for (const item of config.ignored) expect(item.source).toBe(project);
	});

	it("an untrusted project may set redact_model_context to always over the user's never", async () => {
		const s = setup({ user: "flow: { redact_model_context: never }\n", project: "flow: { redact_model_context: always }\n" });
		const config = await resolve(s);
		expect(config.flow.redact_model_context).toBe("always");
		expect(config.ignored).toEqual([]);
		writeFileSync(s.projectPath, "flow: { redact_model_context: untrusted }\n");
		const looser = await resolve(s);
		expect(looser.flow.redact_model_context).toBe("never");
		expect(looser.ignored.map((i) => i.item)).toEqual(["flow.redact_model_context: untrusted"]);
	});

	it("a bad flow setting from the rules file or the command line fails naming where it came from", async () => {
		const s = setup();
		const rulesPath = join(s.workspace, "..", "rules.yaml");
		await expect(
			resolve(s, { rulesFile: { path: rulesPath, rules: {}, flow: { sinks: [{ sink: "net:http://x:80", trust: "untrusted", max: "secret" }] } } }),
		).rejects.toThrow(new ConfigError(`rules file ${rulesPath}: flow.sinks[0].max: an untrusted sink clears at most internal, not secret`));
		await expect(resolve(s, { flags: { flow: { secret_files: ["a/[b"] } } })).rejects.toThrow(/^command line: flow\.secret_files\[0\]: "a\/\[b" is not a valid glob/);
	});

	it("a bad flow section in a config file fails before anything opens", async () => {
		const s = setup({ project: "flow:\n  sinks: [{ sink: 'llm:x', trust: trusted, max: public, release: public }]\n" });
		await expect(resolve(s)).rejects.toThrow(new ConfigError(`config ${s.projectPath}: flow.sinks[0].release must be above max (public), not public`));
	});
});
