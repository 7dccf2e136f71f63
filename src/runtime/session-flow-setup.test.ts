import { describe, expect, it } from "vitest";
import { sinkRegistry } from "./session-flow-setup.js";

describe("sinkRegistry: the session's model as a sink", () => {
	// One row per locality: only a model that stays on this host is trusted with secrets.
	const rows = [
		{ spec: "llama:/home/me/models/Qwen2.5-0.5B-Instruct-Q4_K_M.gguf", locality: "in-process", sink: "llm:llama/Qwen2.5-0.5B-Instruct-Q4_K_M", trust: "trusted", max: "secret" },
		{ spec: "ollama:qwen2.5", locality: "loopback", sink: "llm:ollama/qwen2.5", trust: "trusted", max: "secret" },
		{ spec: "openai:gpt-4o-mini", locality: "remote", sink: "llm:openai/gpt-4o-mini", trust: "untrusted", max: "internal" },
		{ spec: "openai:gpt-4o-mini", locality: undefined, sink: "llm:openai/gpt-4o-mini", trust: "untrusted", max: "internal" },
	] as const;
	for (const row of rows) {
		it(`${row.spec} (${row.locality ?? "locality unsaid"}) clears ${row.sink} up to ${row.max}`, () => {
			const registry = sinkRegistry({}, { spec: row.spec, ...(row.locality ? { locality: row.locality } : {}) });
			expect(registry.resolve(row.sink)).toMatchObject({ sink: row.sink, trust: row.trust, max: row.max });
		});
	}

	it("names an embedded model's sink by its file, never by the host path it was loaded from", () => {
		const registry = sinkRegistry({}, { spec: "llama:/home/me/secret-project/m.gguf", locality: "in-process" });
		expect(registry.rules.map((r) => r.sink)).toContain("llm:llama/m");
		expect(JSON.stringify(registry.rules)).not.toContain("secret-project");
	});
});
