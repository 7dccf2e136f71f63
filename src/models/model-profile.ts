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

/**
 * The profile a resumed session's recorded spec came from, so a resume without `--model` reaches
 * the same endpoint with the same key variable. The store keeps the canonical spec
 * (`<provider>:<model>`); when several profiles share it the choice is ambiguous and nothing is
 * guessed.
 */
export function profileForSpec(spec: string, profiles: ModelProfiles | undefined): { name?: string; ambiguous?: string[] } {
	const names = Object.entries(profiles ?? {})
		.filter(([, { profile }]) => `${profile.provider}:${profile.model}` === spec)
		.map(([name]) => name);
	if (names.length === 1) return { name: names[0] as string };
	return names.length > 1 ? { ambiguous: names } : {};
}
