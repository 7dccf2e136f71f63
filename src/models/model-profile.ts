/**
 * Named model profiles, as a config's `models:` section holds them: a name the user passes to
 * `--model` (or sets as `model:`) standing for a provider, model, endpoint, key variable and window.
 */
export const PROFILE_PROVIDERS = ["anthropic", "openai", "ollama", "lmstudio", "llama"] as const;
export type ProfileProvider = (typeof PROFILE_PROVIDERS)[number];

export interface ModelProfile {
	provider: ProfileProvider;
	/** The model name; for `llama`, the GGUF path or `hf:<repo>/<file>`. */
	model: string;
	/** Overrides the provider's default endpoint (and OPENAI_BASE_URL / ANTHROPIC_BASE_URL / OLLAMA_HOST). */
	base_url?: string;
	/** The environment variable holding the key, e.g. WORK_ANTHROPIC_KEY (default: the provider's usual one). */
	api_key_env?: string;
	/** The model's context window in tokens; becomes the provider's `contextWindow`. */
	context_window?: number;
	/** `remote` marks even a loopback endpoint as leaving the host (a tunnel); `local` is only true of a loopback endpoint. */
	locality?: "local" | "remote";
	/** Retries of a failed attempt (default 3). */
	max_retries?: number;
}

/** Profiles by name, each with the config layer that defined it. */
export type ModelProfiles = Readonly<Record<string, { profile: ModelProfile; source: string }>>;
