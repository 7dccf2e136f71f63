import { resolve } from "node:path";
import { isLoopbackUrl, ollamaBaseUrl } from "./endpoint-url.js";
import { OpenAICompatibleModel } from "./openai-compatible.js";
import { ModelError, type ModelProvider } from "./provider.js";
import { ScriptedModel } from "./scripted.js";

/** A model spec taken apart, before anything is read or contacted. */
export type ResolvedModelSpec =
	| { kind: "scripted"; spec: string; file: string }
	| { kind: "openai-compatible"; spec: string; baseUrl: string; model: string; apiKey?: string }
	| { kind: "llama"; spec: string; path: string };

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
export const LMSTUDIO_DEFAULT_BASE_URL = "http://127.0.0.1:1234/v1";

const ACCEPTED = "scripted:<plan file>, openai:<model>, ollama:<model>, lmstudio:<model>, llama:<model.gguf>";
const NO_MODEL =
	"no model configured: pass --model (e.g. scripted:plan.yaml, ollama:qwen2.5-coder, openai:gpt-4o-mini) or set WARDEN_MODEL";

/** Makes the provider a spec names; WARDEN_MODEL stands in when no spec is given at all. */
export async function createModel(spec: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<ModelProvider> {
	const resolved = resolveModelSpec(spec, env);
	if (resolved.kind === "scripted") return ScriptedModel.load(resolved.file);
	if (resolved.kind === "llama") {
		// Loaded on demand: the CLI's other commands never pay for the embedded runtime's modules.
		const { LlamaModel } = await import("./llama/llama-model.js");
		return LlamaModel.load(resolved.path, { env, spec: resolved.spec });
	}
	return new OpenAICompatibleModel(resolved);
}

/** Parses a spec and reads the environment it depends on; every mistake is a one-line ModelError. */
export function resolveModelSpec(spec: string | undefined, env: NodeJS.ProcessEnv = process.env): ResolvedModelSpec {
	const chosen = (spec === undefined ? env.WARDEN_MODEL : spec)?.trim() ?? "";
	if (chosen === "") throw new ModelError(NO_MODEL);
	const colon = chosen.indexOf(":");
	const prefix = colon === -1 ? "" : chosen.slice(0, colon);
	// Split at the first colon only: Ollama tags (`qwen2.5-coder:7b`) and Windows paths carry their own.
	const rest = colon === -1 ? "" : chosen.slice(colon + 1).trim();
	const known = ["scripted", "openai", "ollama", "lmstudio", "llama"];
	if (!known.includes(prefix)) {
		throw new ModelError(`unknown model spec "${chosen}": use one of ${ACCEPTED}`);
	}
	if (rest === "") {
		const what = prefix === "scripted" ? "plan file" : prefix === "llama" ? "GGUF file" : "model";
		const example = prefix === "scripted" ? "scripted:plan.yaml" : prefix === "llama" ? "llama:model.gguf" : `${prefix}:<model>`;
		throw new ModelError(`model spec "${chosen}" names no ${what} (e.g. ${example})`);
	}
	switch (prefix) {
		case "scripted":
			return { kind: "scripted", spec: chosen, file: rest };
		case "openai":
			return openAI(chosen, rest, env);
		case "llama":
			return { kind: "llama", spec: chosen, path: resolve(rest) };
		case "ollama":
			return { kind: "openai-compatible", spec: chosen, baseUrl: ollamaUrl(env.OLLAMA_HOST), model: rest };
		default:
			return { kind: "openai-compatible", spec: chosen, baseUrl: LMSTUDIO_DEFAULT_BASE_URL, model: rest };
	}
}

function openAI(spec: string, model: string, env: NodeJS.ProcessEnv): ResolvedModelSpec {
	const baseUrl = env.OPENAI_BASE_URL?.trim() || OPENAI_DEFAULT_BASE_URL;
	if (!/^https?:\/\/[^/]/i.test(baseUrl) || !URL.canParse(baseUrl)) {
		throw new ModelError(`OPENAI_BASE_URL "${baseUrl}" is not an http(s) URL`);
	}
	const apiKey = env.OPENAI_API_KEY?.trim() ?? "";
	if (apiKey === "" && !isLoopbackUrl(baseUrl)) {
		throw new ModelError(`${spec} needs an API key for ${baseUrl}: set OPENAI_API_KEY`);
	}
	const resolved: ResolvedModelSpec = { kind: "openai-compatible", spec, baseUrl: baseUrl.replace(/\/+$/, ""), model };
	if (apiKey !== "") resolved.apiKey = apiKey;
	return resolved;
}

function ollamaUrl(ollamaHost: string | undefined): string {
	try {
		return ollamaBaseUrl(ollamaHost);
	} catch {
		throw new ModelError(`OLLAMA_HOST "${ollamaHost}" is not a host, host:port or URL`);
	}
}
