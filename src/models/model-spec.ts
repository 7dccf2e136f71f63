import { resolve } from "node:path";
import { ANTHROPIC_DEFAULT_BASE_URL } from "./anthropic-endpoint.js";
import { isLoopbackUrl, ollamaBaseUrl } from "./endpoint-url.js";
import type { ModelProfile, ModelProfiles } from "./model-profile.js";
import { ollamaContextWindow } from "./ollama-context.js";
import { OpenAICompatibleModel } from "./openai-compatible.js";
import { ModelError, type ModelProvider } from "./provider.js";
import { ScriptedModel } from "./scripted.js";

/** What a profile (or WARDEN_MODEL_RETRIES) adds to a spec. */
export interface SpecExtras {
	/** The profile the spec came from. */
	profile?: string;
	contextWindow?: number;
	/** Set only to `remote`: a profile can make an endpoint count as leaving the host, never the reverse. */
	locality?: "remote";
	maxRetries?: number;
}

/** A model spec taken apart, before anything is read or contacted. */
export type ResolvedModelSpec =
	| ({ kind: "scripted"; spec: string; file: string } & SpecExtras)
	| ({ kind: "openai-compatible"; spec: string; baseUrl: string; model: string; apiKey?: string } & SpecExtras)
	| ({ kind: "anthropic"; spec: string; baseUrl: string; model: string; apiKey?: string } & SpecExtras)
	| ({ kind: "llama"; spec: string; path: string } & SpecExtras);

export interface CreateModelOptions {
	/** The config's named profiles; a spec without a provider prefix may name one. */
	profiles?: ModelProfiles;
	/**
	 * Downloads a `llama:hf:<repo>/<file>` reference into the model cache (or finds it there) and
	 * gives the local path, which the in-process provider then loads as `llama:<path>`.
	 */
	fetchHf?: (reference: string) => Promise<string>;
}

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
export const LMSTUDIO_DEFAULT_BASE_URL = "http://127.0.0.1:1234/v1";

const ACCEPTED = "scripted:<plan file>, openai:<model>, anthropic:<model>, ollama:<model>, lmstudio:<model>, llama:<model.gguf>, llama:hf:<owner>/<repo>/<file>, or a profile name from the config's models:";
const NO_MODEL =
	"no model configured: pass --model (e.g. ollama:qwen2.5-coder, lmstudio:<model>, openai:gpt-4o-mini with OPENAI_API_KEY, anthropic:claude-sonnet-4-5 with ANTHROPIC_API_KEY, or a profile) or set WARDEN_MODEL";

/** Makes the provider a spec names; WARDEN_MODEL stands in when no spec is given at all. */
export async function createModel(spec: string | undefined, env: NodeJS.ProcessEnv = process.env, options: CreateModelOptions = {}): Promise<ModelProvider> {
	const chosen = (spec === undefined ? env.WARDEN_MODEL : spec)?.trim() ?? "";
	const hf = hfReference(chosen, options.profiles);
	if (hf !== undefined) {
		// Downloaded (or found in the cache) first; the in-process provider then loads the file.
		const fetchHf = options.fetchHf ?? (async (reference: string) => (await downloadHf(reference, env)).path);
		const { profiles: _profiles, ...rest } = options;
		return createModel(`llama:${await fetchHf(hf)}`, env, rest);
	}
	const resolved = resolveModelSpec(spec, env, options.profiles);
	const retry = resolved.maxRetries === undefined ? {} : { retry: { maxRetries: resolved.maxRetries } };
	const shared = { ...(resolved.contextWindow !== undefined ? { contextWindow: resolved.contextWindow } : {}), ...(resolved.locality ? { locality: resolved.locality } : {}), ...retry };
	switch (resolved.kind) {
		case "scripted":
			return ScriptedModel.load(resolved.file);
		case "anthropic": {
			// Loaded on demand: the SDK is a few hundred modules that a chat on another model never needs.
			const { AnthropicModel } = await import("./anthropic.js");
			return new AnthropicModel({ spec: resolved.spec, model: resolved.model, baseUrl: resolved.baseUrl, ...(resolved.apiKey ? { apiKey: resolved.apiKey } : {}), ...shared });
		}
		case "llama": {
			// Loaded on demand: the CLI's other commands never pay for the embedded runtime's modules.
			const { LlamaModel } = await import("./llama/llama-model.js");
			return LlamaModel.load(resolved.path, { env, spec: resolved.spec });
		}
		case "openai-compatible": {
			// Ollama says its model's window (api/show); a stated window (a profile's) is not asked about.
			const discovered = resolved.contextWindow === undefined && resolved.spec.startsWith("ollama:") ? await ollamaContextWindow(resolved.baseUrl, resolved.model) : undefined;
			const window = discovered === undefined ? {} : { contextWindow: discovered };
			return new OpenAICompatibleModel({ spec: resolved.spec, baseUrl: resolved.baseUrl, model: resolved.model, ...(resolved.apiKey ? { apiKey: resolved.apiKey } : {}), ...shared, ...window });
		}
	}
}

/** Loaded only when a spec needs it, so a CLI that never downloads does not load the downloader. */
async function downloadHf(reference: string, env: NodeJS.ProcessEnv) {
	const { fetchHfModel } = await import("./download/fetch-hf-model.js");
	return fetchHfModel(reference, env, { progressTo: process.stderr });
}

/** The `<repo>/<file>` of a `llama:hf:<repo>/<file>` spec (directly or through a profile), else undefined. */
export function hfReference(spec: string, profiles: ModelProfiles | undefined): string | undefined {
	const profile = profiles?.[spec]?.profile;
	const full = profile?.provider === "llama" ? `llama:${profile.model}` : spec;
	const match = /^llama:hf:(.+)$/.exec(full.trim());
	return match?.[1]?.trim();
}

/** Parses a spec and reads the environment it depends on; every mistake is a one-line ModelError. */
export function resolveModelSpec(spec: string | undefined, env: NodeJS.ProcessEnv = process.env, profiles?: ModelProfiles): ResolvedModelSpec {
	const chosen = (spec === undefined ? env.WARDEN_MODEL : spec)?.trim() ?? "";
	if (chosen === "") throw new ModelError(NO_MODEL);
	const named = profiles?.[chosen];
	if (named !== undefined) return withRetries(fromProfile(chosen, named.profile, named.source, env), env);
	const colon = chosen.indexOf(":");
	const prefix = colon === -1 ? "" : chosen.slice(0, colon);
	// Split at the first colon only: Ollama tags (`qwen2.5-coder:7b`) and Windows paths carry their own.
	const rest = colon === -1 ? "" : chosen.slice(colon + 1).trim();
	const known = ["scripted", "openai", "anthropic", "ollama", "lmstudio", "llama"];
	if (!known.includes(prefix)) {
		const names = Object.keys(profiles ?? {});
		const profileHint = colon === -1 ? ` (no profile "${chosen}" in the config${names.length > 0 ? `; profiles: ${names.join(", ")}` : ""})` : "";
		throw new ModelError(`unknown model spec "${chosen}"${profileHint}: use one of ${ACCEPTED}`);
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
			return withRetries(openAI(chosen, rest, env), env);
		case "anthropic":
			return withRetries(anthropic(chosen, rest, env), env);
		case "llama":
			return { kind: "llama", spec: chosen, path: resolve(rest) };
		case "ollama":
			return withRetries({ kind: "openai-compatible", spec: chosen, baseUrl: ollamaUrl(env.OLLAMA_HOST), model: rest }, env);
		default:
			return withRetries({ kind: "openai-compatible", spec: chosen, baseUrl: LMSTUDIO_DEFAULT_BASE_URL, model: rest }, env);
	}
}

interface Endpoint {
	spec: string;
	model: string;
	baseUrl: string;
	/** Where the base URL came from, for errors: `OPENAI_BASE_URL`, `profile "work" base_url`. */
	baseFrom: string;
	apiKey: string | undefined;
	keyVar: string;
	/** Ollama and LM Studio run without keys wherever they run. */
	keyOptional?: boolean;
}

type EndpointSpec = Exclude<ResolvedModelSpec, { kind: "scripted" | "llama" }>;

function endpoint(kind: EndpointSpec["kind"], e: Endpoint): EndpointSpec {
	if (!/^https?:\/\/[^/]/i.test(e.baseUrl) || !URL.canParse(e.baseUrl)) throw new ModelError(`${e.baseFrom} "${e.baseUrl}" is not an http(s) URL`);
	const apiKey = e.apiKey?.trim() ?? "";
	if (apiKey === "" && e.keyOptional !== true && !isLoopbackUrl(e.baseUrl)) throw new ModelError(`${e.spec} needs an API key for ${e.baseUrl}: set ${e.keyVar}`);
	const resolved: EndpointSpec = { kind, spec: e.spec, baseUrl: e.baseUrl.replace(/\/+$/, ""), model: e.model };
	if (apiKey !== "") resolved.apiKey = apiKey;
	return resolved;
}

function openAI(spec: string, model: string, env: NodeJS.ProcessEnv): ResolvedModelSpec {
	const baseUrl = env.OPENAI_BASE_URL?.trim() || OPENAI_DEFAULT_BASE_URL;
	return endpoint("openai-compatible", { spec, model, baseUrl, baseFrom: "OPENAI_BASE_URL", apiKey: env.OPENAI_API_KEY, keyVar: "OPENAI_API_KEY" });
}

function anthropic(spec: string, model: string, env: NodeJS.ProcessEnv): ResolvedModelSpec {
	const baseUrl = env.ANTHROPIC_BASE_URL?.trim() || ANTHROPIC_DEFAULT_BASE_URL;
	return endpoint("anthropic", { spec, model, baseUrl, baseFrom: "ANTHROPIC_BASE_URL", apiKey: env.ANTHROPIC_API_KEY, keyVar: "ANTHROPIC_API_KEY" });
}

/** The spec a profile stands for, canonical (`anthropic:<model>`) so that grants and sinks on `llm:anthropic/<model>` apply. */
function fromProfile(name: string, profile: ModelProfile, source: string, env: NodeJS.ProcessEnv): ResolvedModelSpec {
	const spec = `${profile.provider}:${profile.model}`;
	const where = `profile "${name}" (${source})`;
	const keyVar = profile.api_key_env;
	const key = (fallback: string) => env[keyVar ?? fallback];
	const base = (fallback: string) => (profile.base_url !== undefined ? { baseUrl: profile.base_url, baseFrom: `${where} base_url` } : { baseUrl: fallback, baseFrom: "the default base URL" });
	let resolved: EndpointSpec;
	switch (profile.provider) {
		case "anthropic":
			resolved = endpoint("anthropic", { spec, model: profile.model, ...base(env.ANTHROPIC_BASE_URL?.trim() || ANTHROPIC_DEFAULT_BASE_URL), apiKey: key("ANTHROPIC_API_KEY"), keyVar: keyVar ?? "ANTHROPIC_API_KEY" });
			break;
		case "openai":
			resolved = endpoint("openai-compatible", { spec, model: profile.model, ...base(env.OPENAI_BASE_URL?.trim() || OPENAI_DEFAULT_BASE_URL), apiKey: key("OPENAI_API_KEY"), keyVar: keyVar ?? "OPENAI_API_KEY" });
			break;
		case "ollama":
			resolved = endpoint("openai-compatible", { spec, model: profile.model, ...base(ollamaUrl(env.OLLAMA_HOST)), apiKey: keyVar ? env[keyVar] : undefined, keyVar: keyVar ?? "", keyOptional: true });
			break;
		case "lmstudio":
			resolved = endpoint("openai-compatible", { spec, model: profile.model, ...base(LMSTUDIO_DEFAULT_BASE_URL), apiKey: keyVar ? env[keyVar] : undefined, keyVar: keyVar ?? "", keyOptional: true });
			break;
		case "llama":
			// In-process: no endpoint, key or locality to check; the llama spec's own rules apply.
			return withExtras(resolveModelSpec(spec, env), name, profile);
	}
	if (keyVar !== undefined && (env[keyVar]?.trim() ?? "") === "" && (profile.provider === "ollama" || profile.provider === "lmstudio")) {
		throw new ModelError(`${where} names api_key_env ${keyVar}, which is not set`);
	}
	if (profile.locality === "local" && !isLoopbackUrl(resolved.baseUrl)) {
		throw new ModelError(`${where} says locality local, but ${resolved.baseUrl} is not on this host: drop locality or use remote`);
	}
	return withExtras(resolved, name, profile);
}

function withExtras(resolved: ResolvedModelSpec, name: string, profile: ModelProfile): ResolvedModelSpec {
	const extended: ResolvedModelSpec = { ...resolved, profile: name };
	if (profile.context_window !== undefined) extended.contextWindow = profile.context_window;
	if (profile.locality === "remote") extended.locality = "remote";
	if (profile.max_retries !== undefined) extended.maxRetries = profile.max_retries;
	return extended;
}

/** WARDEN_MODEL_RETRIES sets the retry count of a spec whose profile does not. */
function withRetries(resolved: ResolvedModelSpec, env: NodeJS.ProcessEnv): ResolvedModelSpec {
	const raw = env.WARDEN_MODEL_RETRIES?.trim();
	if (resolved.maxRetries !== undefined || raw === undefined || raw === "") return resolved;
	if (!/^\d+$/.test(raw)) throw new ModelError(`WARDEN_MODEL_RETRIES must be a whole number of at least 0, got "${raw}"`);
	return { ...resolved, maxRetries: Number(raw) };
}

function ollamaUrl(ollamaHost: string | undefined): string {
	try {
		return ollamaBaseUrl(ollamaHost);
	} catch {
		throw new ModelError(`OLLAMA_HOST "${ollamaHost}" is not a host, host:port or URL`);
	}
}
