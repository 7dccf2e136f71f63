import { describe, expect, it } from "vitest";
import { AnthropicModel } from "./anthropic.js";
import { type ModelProfile, type ModelProfiles, profileForSpec } from "./model-profile.js";
import { createModel, hfReference, resolveModelSpec } from "./model-spec.js";
import { OpenAICompatibleModel } from "./openai-compatible.js";
import { ModelError } from "./provider.js";

const profiles = (entries: Record<string, ModelProfile>): ModelProfiles =>
	Object.fromEntries(Object.entries(entries).map(([name, profile]) => [name, { profile, source: "user config /home/u/.config/warden/config.yaml" }]));

function specError(spec: string, env: NodeJS.ProcessEnv, named?: ModelProfiles): string {
	try {
		resolveModelSpec(spec, env, named);
	} catch (error) {
		expect(error).toBeInstanceOf(ModelError);
		expect((error as Error).message).not.toContain("\n");
		return (error as Error).message;
	}
	throw new Error(`${spec} was accepted`);
}

describe("anthropic:<model>", () => {
	it("uses Anthropic's URL and ANTHROPIC_API_KEY, or a loopback ANTHROPIC_BASE_URL without a key", () => {
		expect(resolveModelSpec("anthropic:claude-sonnet-4-5", { ANTHROPIC_API_KEY: "sk-ant" })).toEqual({
			kind: "anthropic",
			spec: "anthropic:claude-sonnet-4-5",
			baseUrl: "https://api.anthropic.com",
			model: "claude-sonnet-4-5",
			apiKey: "sk-ant",
		});
		expect(resolveModelSpec("anthropic:c", { ANTHROPIC_BASE_URL: "http://127.0.0.1:9000/" })).toEqual({ kind: "anthropic", spec: "anthropic:c", baseUrl: "http://127.0.0.1:9000", model: "c" });
	});

	it("asks for the key in one line", () => {
		expect(specError("anthropic:c", {})).toBe("anthropic:c needs an API key for https://api.anthropic.com: set ANTHROPIC_API_KEY");
		expect(specError("anthropic:c", { ANTHROPIC_BASE_URL: "gopher://x", ANTHROPIC_API_KEY: "k" })).toBe('ANTHROPIC_BASE_URL "gopher://x" is not an http(s) URL');
	});

	it("creates a remote AnthropicModel", async () => {
		const model = await createModel("anthropic:claude-haiku-4-5", { ANTHROPIC_API_KEY: "k" });
		expect(model).toBeInstanceOf(AnthropicModel);
		expect(model).toMatchObject({ spec: "anthropic:claude-haiku-4-5", locality: "remote", baseUrl: "https://api.anthropic.com" });
	});
});

describe("model profiles", () => {
	const named = profiles({
		work: { provider: "anthropic", model: "claude-sonnet-4-5", api_key_env: "WORK_KEY", context_window: 200_000, max_retries: 5 },
		box: { provider: "ollama", model: "qwen2.5-coder:7b", base_url: "http://127.0.0.1:11500/v1", context_window: 32_768, locality: "local" },
		tunnel: { provider: "openai", model: "m", base_url: "http://localhost:8000/v1", locality: "remote" },
		lan: { provider: "lmstudio", model: "m", base_url: "http://10.0.0.9:1234/v1", locality: "local" },
		nokey: { provider: "lmstudio", model: "m", api_key_env: "LMS_KEY" },
		tiny: { provider: "llama", model: "hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf" },
	});

	it("resolves a profile to the canonical spec with its key variable, window and retries", () => {
		expect(resolveModelSpec("work", { WORK_KEY: "sk-w", ANTHROPIC_API_KEY: "other" }, named)).toEqual({
			kind: "anthropic",
			spec: "anthropic:claude-sonnet-4-5",
			baseUrl: "https://api.anthropic.com",
			model: "claude-sonnet-4-5",
			apiKey: "sk-w",
			profile: "work",
			contextWindow: 200_000,
			maxRetries: 5,
		});
	});

	it("sets the provider's contextWindow and locality from the profile", async () => {
		const box = await createModel("box", {}, { profiles: named });
		expect(box).toBeInstanceOf(OpenAICompatibleModel);
		expect(box).toMatchObject({ spec: "ollama:qwen2.5-coder:7b", baseUrl: "http://127.0.0.1:11500/v1", contextWindow: 32_768, locality: "loopback" });
		const tunnel = await createModel("tunnel", {}, { profiles: named });
		expect(tunnel.locality).toBe("remote");
		const work = await createModel("work", { WORK_KEY: "k" }, { profiles: named });
		expect(work).toMatchObject({ spec: "anthropic:claude-sonnet-4-5", contextWindow: 200_000, locality: "remote" });
	});

	it("names the profile and the problem in one line", () => {
		expect(specError("work", {}, named)).toBe("anthropic:claude-sonnet-4-5 needs an API key for https://api.anthropic.com: set WORK_KEY");
		expect(specError("lan", {}, named)).toBe(
			'profile "lan" (user config /home/u/.config/warden/config.yaml) says locality local, but http://10.0.0.9:1234/v1 is not on this host: drop locality or use remote',
		);
		expect(specError("nokey", {}, named)).toBe('profile "nokey" (user config /home/u/.config/warden/config.yaml) names api_key_env LMS_KEY, which is not set');
		expect(specError("wrok", {}, named)).toMatch(/^unknown model spec "wrok" \(no profile "wrok" in the config; profiles: work, box, tunnel, lan, nokey, tiny\)/);
		const badUrl = profiles({ x: { provider: "openai", model: "m", base_url: "localhost:8000" } });
		expect(specError("x", {}, badUrl)).toBe('profile "x" (user config /home/u/.config/warden/config.yaml) base_url "localhost:8000" is not an http(s) URL');
	});

	it("a spec with a prefix is never a profile, and WARDEN_MODEL may name one", () => {
		expect(resolveModelSpec("ollama:box", {}, named)).toMatchObject({ spec: "ollama:box", baseUrl: "http://127.0.0.1:11434/v1" });
		expect(resolveModelSpec(undefined, { WARDEN_MODEL: "box" }, named)).toMatchObject({ profile: "box" });
	});

	it("WARDEN_MODEL_RETRIES sets the count where no profile does", () => {
		expect(resolveModelSpec("ollama:m", { WARDEN_MODEL_RETRIES: "7" })).toMatchObject({ maxRetries: 7 });
		expect(resolveModelSpec("work", { WORK_KEY: "k", WARDEN_MODEL_RETRIES: "7" }, named)).toMatchObject({ maxRetries: 5 });
		expect(specError("ollama:m", { WARDEN_MODEL_RETRIES: "many" })).toBe('WARDEN_MODEL_RETRIES must be a whole number of at least 0, got "many"');
	});

	it("finds the hf reference of a llama spec, directly or through a profile", () => {
		expect(hfReference("llama:hf:org/repo/file.gguf", undefined)).toBe("org/repo/file.gguf");
		expect(hfReference("tiny", named)).toBe("Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf");
		expect(hfReference("llama:/models/x.gguf", named)).toBeUndefined();
	});
});

describe("profileForSpec (a resume without --model)", () => {
	const set = profiles({
		work: { provider: "anthropic", model: "claude-sonnet-4-5", api_key_env: "WORK_KEY" },
		box: { provider: "openai", model: "qwen", base_url: "http://127.0.0.1:8080/v1" },
		tunnel: { provider: "openai", model: "qwen", base_url: "http://127.0.0.1:9090/v1" },
	});
	it("names the one profile whose canonical spec the session recorded", () => {
		expect(profileForSpec("anthropic:claude-sonnet-4-5", set)).toEqual({ name: "work" });
	});
	it("guesses nothing when several profiles share the spec, or none does", () => {
		expect(profileForSpec("openai:qwen", set)).toEqual({ ambiguous: ["box", "tunnel"] });
		expect(profileForSpec("ollama:llama3", set)).toEqual({});
		expect(profileForSpec("ollama:llama3", undefined)).toEqual({});
	});
});
