import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createModel, resolveModelSpec } from "./model-spec.js";
import { OpenAICompatibleModel } from "./openai-compatible.js";
import { ModelError } from "./provider.js";
import { ScriptedModel } from "./scripted.js";
import { TEST_LLAMA_RUNTIME } from "./test-support/llama-test-runtime.js";

function specError(spec: string | undefined, env: NodeJS.ProcessEnv = {}): string {
	try {
		resolveModelSpec(spec, env);
	} catch (error) {
		expect(error).toBeInstanceOf(ModelError);
		const message = (error as ModelError).message;
		expect(message).not.toContain("\n");
		return message;
	}
	throw new Error(`spec ${spec} was accepted`);
}

describe("resolveModelSpec", () => {
	it("points ollama and lmstudio at their default local ports", () => {
		expect(resolveModelSpec("ollama:qwen2.5-coder:7b", {})).toEqual({
			kind: "openai-compatible",
			spec: "ollama:qwen2.5-coder:7b",
			baseUrl: "http://127.0.0.1:11434/v1",
			model: "qwen2.5-coder:7b",
		});
		expect(resolveModelSpec("lmstudio:qwen/qwen3-8b", {})).toEqual({
			kind: "openai-compatible",
			spec: "lmstudio:qwen/qwen3-8b",
			baseUrl: "http://127.0.0.1:1234/v1",
			model: "qwen/qwen3-8b",
		});
	});

	it("reads OLLAMA_HOST in each of the forms Ollama accepts", () => {
		const urlFor = (host: string) => resolveModelSpec("ollama:m", { OLLAMA_HOST: host });
		expect(urlFor("gpu-box")).toMatchObject({ baseUrl: "http://gpu-box:11434/v1" });
		expect(urlFor("10.0.0.5:9999")).toMatchObject({ baseUrl: "http://10.0.0.5:9999/v1" });
		expect(urlFor("https://ollama.example.com/")).toMatchObject({ baseUrl: "https://ollama.example.com/v1" });
		expect(urlFor("http://127.0.0.1:11434/v1")).toMatchObject({ baseUrl: "http://127.0.0.1:11434/v1" });
		expect(specError("ollama:m", { OLLAMA_HOST: "http://[bad" })).toBe('OLLAMA_HOST "http://[bad" is not a host, host:port or URL');
	});

	it("uses OpenAI's URL and key, or a local OPENAI_BASE_URL without a key", () => {
		expect(resolveModelSpec("openai:gpt-4o-mini", { OPENAI_API_KEY: "sk-1" })).toEqual({
			kind: "openai-compatible",
			spec: "openai:gpt-4o-mini",
			baseUrl: "https://api.openai.com/v1",
			model: "gpt-4o-mini",
			apiKey: "sk-1",
		});
		expect(resolveModelSpec("openai:local", { OPENAI_BASE_URL: "http://localhost:8000/v1/" })).toEqual({
			kind: "openai-compatible",
			spec: "openai:local",
			baseUrl: "http://localhost:8000/v1",
			model: "local",
		});
	});

	it("never sends OPENAI_API_KEY to ollama or lmstudio", () => {
		expect(resolveModelSpec("ollama:m", { OPENAI_API_KEY: "sk-1" })).not.toHaveProperty("apiKey");
		expect(resolveModelSpec("lmstudio:m", { OPENAI_API_KEY: "sk-1" })).not.toHaveProperty("apiKey");
	});

	it("refuses a remote OpenAI endpoint without a key, and a base URL that is not http(s)", () => {
		expect(specError("openai:gpt-4o-mini")).toBe("openai:gpt-4o-mini needs an API key for https://api.openai.com/v1: set OPENAI_API_KEY");
		expect(specError("openai:m", { OPENAI_BASE_URL: "https://llm.example.com/v1" })).toMatch(/needs an API key for https:\/\/llm\.example\.com\/v1/);
		expect(specError("openai:m", { OPENAI_BASE_URL: "ftp://x", OPENAI_API_KEY: "k" })).toBe('OPENAI_BASE_URL "ftp://x" is not an http(s) URL');
	});

	it("falls back to WARDEN_MODEL only when no spec is given", () => {
		expect(resolveModelSpec(undefined, { WARDEN_MODEL: "lmstudio:m" })).toMatchObject({ spec: "lmstudio:m" });
		expect(resolveModelSpec("ollama:n", { WARDEN_MODEL: "lmstudio:m" })).toMatchObject({ spec: "ollama:n" });
	});

	it("explains how to configure a model when there is none", () => {
		const expected =
			"no model configured: pass --model (e.g. ollama:qwen2.5-coder, lmstudio:<model>, openai:gpt-4o-mini with OPENAI_API_KEY, anthropic:claude-sonnet-4-5 with ANTHROPIC_API_KEY, or a profile) or set WARDEN_MODEL";
		expect(specError(undefined)).toBe(expected);
		expect(specError("")).toBe(expected);
		expect(specError(undefined, { WARDEN_MODEL: "  " })).toBe(expected);
	});

	it("lists the accepted prefixes for an unknown one, and asks for the missing part of a bare prefix", () => {
		const accepted = "use one of scripted:<plan file>, openai:<model>, anthropic:<model>, ollama:<model>, lmstudio:<model>, llama:<model.gguf>, llama:hf:<owner>/<repo>/<file>, or a profile name from the config's models:";
		expect(specError("claude:opus")).toBe(`unknown model spec "claude:opus": ${accepted}`);
		expect(specError("gpt-4o")).toBe(`unknown model spec "gpt-4o" (no profile "gpt-4o" in the config): ${accepted}`);
		expect(specError("ollama:")).toBe('model spec "ollama:" names no model (e.g. ollama:<model>)');
		expect(specError("scripted:")).toBe('model spec "scripted:" names no plan file (e.g. scripted:plan.yaml)');
		expect(specError("llama:")).toBe('model spec "llama:" names no GGUF file (e.g. llama:model.gguf)');
	});

	it("takes llama:<path> as a GGUF file, made absolute, without reading it", () => {
		expect(resolveModelSpec("llama:/models/tiny.gguf", {})).toEqual({ kind: "llama", spec: "llama:/models/tiny.gguf", path: "/models/tiny.gguf" });
		expect(resolveModelSpec("llama:models/q.gguf", {})).toEqual({ kind: "llama", spec: "llama:models/q.gguf", path: join(process.cwd(), "models/q.gguf") });
	});
});

describe("createModel", () => {
	it("loads a scripted plan from a file", async () => {
		const dir = await mkdtemp(join(tmpdir(), "warden-spec-"));
		try {
			const file = join(dir, "plan.yaml");
			await writeFile(file, "steps:\n  - text: from the file\n");
			const model = await createModel(`scripted:${file}`, {});
			expect(model).toBeInstanceOf(ScriptedModel);
			expect(model.spec).toBe(`scripted:${file}`);
			expect((await model.complete({ messages: [], tools: [] }, new AbortController().signal)).text).toBe("from the file");
		} finally {
			await rm(dir, { recursive: true, force: true });
		}
	});

	it("makes an OpenAI-compatible model for the network prefixes", async () => {
		const model = await createModel("ollama:llama3.2", {});
		expect(model).toBeInstanceOf(OpenAICompatibleModel);
		expect(model).toMatchObject({ spec: "ollama:llama3.2", baseUrl: "http://127.0.0.1:11434/v1", model: "llama3.2" });
	});

	it("reports a llama: model file that is not there in one line", async () => {
		const env = { WARDEN_LLAMA_RUNTIME: TEST_LLAMA_RUNTIME };
		await expect(createModel("llama:/no/such/model.gguf", env)).rejects.toThrow(/^llama model \/no\/such\/model\.gguf cannot be read: ENOENT$/);
	});

	it("passes a scripted plan's load error through", async () => {
		await expect(createModel("scripted:/no/such/plan.yaml", {})).rejects.toThrow("scripted plan /no/such/plan.yaml: file not found");
	});
});
