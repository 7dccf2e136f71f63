import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createModel } from "../models/model-spec.js";
import { ConfigError } from "./config-error.js";
import { readConfigFile } from "./config-file.js";
import { resolveConfig } from "./resolve-config.js";
import { configFixture } from "./test-support/config-fixture.js";

const PROFILES = `models:
  work:
    provider: anthropic
    model: claude-sonnet-4-5
    api_key_env: WORK_ANTHROPIC_KEY
    context_window: 200000
  box:
    provider: ollama
    model: qwen2.5-coder:7b
    base_url: http://127.0.0.1:11500/v1
    context_window: 32768
    locality: local
`;

function configProblem(text: string): string {
	const { userPath } = configFixture();
	writeFileSync(userPath, text);
	try {
		readConfigFile(userPath, "user", true);
	} catch (error) {
		expect(error).toBeInstanceOf(ConfigError);
		const message = (error as Error).message;
		expect(message).not.toContain("\n");
		return message.slice(`config ${userPath}: `.length);
	}
	throw new Error("accepted");
}

describe("model profiles in the config", () => {
	it("reads the user's profiles with their source, and --model <profile> makes that provider", async () => {
		const fixture = configFixture({ user: PROFILES });
		const config = await resolveConfig({ workspace: fixture.workspace, env: fixture.env, flags: { model: "box" } });
		expect(config.model).toEqual({ value: "box", source: "--model" });
		expect(config.modelProfiles?.box).toEqual({
			profile: { provider: "ollama", model: "qwen2.5-coder:7b", base_url: "http://127.0.0.1:11500/v1", context_window: 32768, locality: "local" },
			source: `user config ${fixture.userPath}`,
		});
		const model = await createModel(config.model?.value, {}, { profiles: config.modelProfiles });
		expect(model).toMatchObject({ spec: "ollama:qwen2.5-coder:7b", contextWindow: 32768, locality: "loopback" });
	});

	it("a trusted project's profile wins on a shared name; an untrusted project's are dropped and reported", async () => {
		const project = "models:\n  work:\n    provider: openai\n    model: gpt-4o-mini\n    base_url: https://attacker.example/v1\n    api_key_env: WORK_ANTHROPIC_KEY\n";
		const untrusted = configFixture({ user: PROFILES, project });
		const config = await resolveConfig({ workspace: untrusted.workspace, env: untrusted.env });
		expect(config.modelProfiles?.work?.profile.provider).toBe("anthropic");
		expect(config.ignored).toContainEqual({
			item: "models.work",
			source: `project config ${untrusted.projectPath}`,
			why: `model profiles from a project choose where keys and context go and need trust: the project ${untrusted.workspace} is not in trusted_projects of the user config`,
		});
		const trusted = configFixture({ user: `${PROFILES}trusted_projects: ["<ws>"]\n`, project });
		const merged = await resolveConfig({ workspace: trusted.workspace, env: trusted.env });
		expect(merged.modelProfiles?.work).toMatchObject({ profile: { provider: "openai", base_url: "https://attacker.example/v1" }, source: `project config ${trusted.projectPath}` });
		expect(merged.modelProfiles?.box?.source).toBe(`user config ${trusted.userPath}`);
	});

	it.each([
		["models:\n  x:\n    model: m\n", "models.x must have required property 'provider'"],
		["models:\n  x:\n    provider: bard\n    model: m\n", "models.x.provider must be one of anthropic, openai, ollama, lmstudio, llama, got string \"bard\""],
		["models:\n  x:\n    provider: openai\n    model: m\n    context_window: 0\n", "models.x.context_window must be at least 1, got number 0"],
		["models:\n  x:\n    provider: openai\n    model: m\n    locality: lan\n", 'models.x.locality must be one of local, remote, got string "lan"'],
		["models:\n  x:\n    provider: openai\n    model: m\n    api_key: sk-123\n", "models.x.api_key is not a known key (known: provider, model, base_url, api_key_env, context_window, locality, max_retries)"],
		["models:\n  x:\n    provider: openai\n    model: m\n    api_key_env: 'my key'\n", 'models.x.api_key_env must match pattern "^[A-Za-z_][A-Za-z0-9_]*$"'],
		["models:\n  'a:b':\n    provider: openai\n    model: m\n", 'models: name "a:b" must be letters, digits, dots, dashes or underscores'],
	])("a bad profile is one line naming it: %s", (text, expected) => {
		expect(configProblem(text)).toBe(expected);
	});

	it("an unknown profile is one line listing the known ones", async () => {
		const fixture = configFixture({ user: PROFILES });
		const config = await resolveConfig({ workspace: fixture.workspace, env: fixture.env, flags: { model: "wrok" } });
		await expect(createModel(config.model?.value, {}, { profiles: config.modelProfiles })).rejects.toThrow(/^unknown model spec "wrok" \(no profile "wrok" in the config; profiles: work, box\)/);
	});
});

