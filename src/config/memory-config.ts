/**
 * Memory settings from the config files. Only the user config's count: an embeddings endpoint is
 * sent the text of what is remembered, so a project (even a trusted one) that named one could
 * collect it; a project's `memory` is ignored with a note. The API key is read from the variable
 * `api_key_env` names, never written in the file.
 */
import type { ConfigLayer, IgnoredConfigItem, ResolvedConfig } from "./config-types.js";
import { ConfigError } from "./config-error.js";

export function resolveMemory(user: ConfigLayer | undefined, project: ConfigLayer | undefined, env: NodeJS.ProcessEnv, ignored: IgnoredConfigItem[]): ResolvedConfig["memory"] {
	if (project?.data.memory !== undefined) {
		ignored.push({ item: "memory", source: project.source, why: "memory settings are read from the user config only: an embeddings endpoint receives what is remembered" });
	}
	const data = user?.data.memory;
	if (data === undefined) return undefined;
	if (data.enabled === false) return { value: false, source: user!.source };
	const e = data.embeddings;
	if (e === undefined) return { value: {}, source: user!.source };
	const apiKey = e.api_key_env === undefined ? undefined : env[e.api_key_env];
	if (e.api_key_env !== undefined && !apiKey) throw new ConfigError(`${user!.source}: memory.embeddings.api_key_env names ${e.api_key_env}, which is not set`);
	try {
		new URL(e.base_url);
	} catch {
		throw new ConfigError(`${user!.source}: memory.embeddings.base_url ${JSON.stringify(e.base_url)} is not a URL`);
	}
	return { value: { embeddings: { baseUrl: e.base_url, model: e.model, ...(apiKey ? { apiKey } : {}) } }, source: user!.source };
}
