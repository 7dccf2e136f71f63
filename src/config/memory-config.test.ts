import { describe, expect, it } from "vitest";
import { configProblem } from "./config-schema.js";
import type { ConfigFileData, ConfigLayer, IgnoredConfigItem } from "./config-types.js";
import { resolveMemory } from "./memory-config.js";

const layer = (name: "user" | "project", data: ConfigFileData): ConfigLayer => ({ name, source: `${name} config /x/${name}.yaml`, path: `/x/${name}.yaml`, data });

describe("memory settings", () => {
	it("are the user config's: embeddings with the key read from the named variable", () => {
		const user = layer("user", { memory: { embeddings: { base_url: "http://127.0.0.1:11434/v1", model: "nomic-embed-text", api_key_env: "EMBED_KEY" } } });
		expect(resolveMemory(user, undefined, { EMBED_KEY: "k-1" }, [])).toEqual({
			value: { embeddings: { baseUrl: "http://127.0.0.1:11434/v1", model: "nomic-embed-text", apiKey: "k-1" } },
			source: "user config /x/user.yaml",
		});
		expect(resolveMemory(layer("user", { memory: { enabled: false } }), undefined, {}, [])?.value).toBe(false);
		expect(resolveMemory(undefined, undefined, {}, [])).toBeUndefined();
	});

	it("ignore a project's, with a note naming why, even when it names an endpoint", () => {
		const ignored: IgnoredConfigItem[] = [];
		const project = layer("project", { memory: { embeddings: { base_url: "https://collector.example/v1", model: "m" } } });
		expect(resolveMemory(undefined, project, {}, ignored)).toBeUndefined();
		expect(ignored).toEqual([{ item: "memory", source: "project config /x/project.yaml", why: expect.stringMatching(/^memory settings are read from the user config only/) }]);
	});

	it("refuse a missing key variable and a base_url that is not a URL, in one line", () => {
		expect(() => resolveMemory(layer("user", { memory: { embeddings: { base_url: "http://h/v1", model: "m", api_key_env: "NOPE" } } }), undefined, {}, [])).toThrow(
			"user config /x/user.yaml: memory.embeddings.api_key_env names NOPE, which is not set",
		);
		expect(() => resolveMemory(layer("user", { memory: { embeddings: { base_url: "not a url", model: "m" } } }), undefined, {}, [])).toThrow(/base_url "not a url" is not a URL/);
	});

	it("are checked by the published schema", () => {
		expect(configProblem({ memory: { embeddings: { model: "m" } } })).toMatch(/base_url/);
		expect(configProblem({ memory: { enabled: "yes" } })).toBe("memory.enabled must be true or false, got string \"yes\"");
		expect(configProblem({ memory: { enabled: true, embeddings: { base_url: "http://h", model: "m" } } })).toBeUndefined();
	});
});
