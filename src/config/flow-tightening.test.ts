import { describe, expect, it } from "vitest";
import { patternMatches } from "../kernel/authority/resource-pattern.js";
import { looserThan, mayOverlap, tightenUntrustedFlow } from "./flow-tightening.js";

describe("mayOverlap", () => {
	it("says no only when the literal ends rule out a common sink", () => {
		expect(mayOverlap("llm:openai/*", "llm:ollama/*")).toBe(false);
		expect(mayOverlap("net:https://a.example:443", "llm:openai/*")).toBe(false);
		expect(mayOverlap("net:http://127.0.0.1:*", "net:http://127.0.0.1:4100")).toBe(true);
		expect(mayOverlap("net:*", "net:https://x:443")).toBe(true);
		expect(mayOverlap("net:*:443", "net:*:80")).toBe(false);
		expect(mayOverlap("net:https://*:443", "net:*.example.com:*")).toBe(true);
		expect(mayOverlap("fs:secrets/**", "fs:secrets")).toBe(true);
	});

	it("is sound: whenever one sink matches both patterns, it says they may overlap", () => {
		const patterns = ["net:*", "net:https://*", "net:*:443", "net:http://127.0.0.1:*", "llm:openai/*", "llm:*", "fs:public/**", "fs:public", "fs:*.md", "human:host"];
		const sinks = ["net:https://api.example.com:443", "net:http://127.0.0.1:4100", "llm:openai/gpt-4o", "llm:ollama/qwen", "fs:public", "fs:public/a.md", "fs:notes.md", "human:host"];
		for (const a of patterns) {
			for (const b of patterns) {
				const common = sinks.some((s) => patternMatches(a, s) && patternMatches(b, s));
				if (common) expect(mayOverlap(a, b), `${a} / ${b}`).toBe(true);
			}
		}
	});
});

describe("looserThan", () => {
	const base = { sink: "llm:x", trust: "untrusted" as const, max: "internal" as const };

	it("names the first way a rule clears more than another", () => {
		expect(looserThan(base, base)).toBeUndefined();
		expect(looserThan({ ...base, max: "public" }, base)).toBeUndefined();
		expect(looserThan(base, { ...base, max: "public" })).toBe("clears internal where that rule clears public");
		expect(looserThan({ ...base, max: "public", release: "internal" }, { ...base, max: "public" })).toBe("allows releasing internal where that rule allows public");
		expect(looserThan({ ...base, max: "public", release: "internal" }, base)).toBeUndefined();
		expect(looserThan(base, { ...base, min_integrity: "trusted" })).toBe("accepts untrusted data that rule refuses");
		expect(looserThan({ ...base, trust: "trusted" }, base)).toBe("calls trusted a sink that rule calls untrusted");
	});
});

describe("tightenUntrustedFlow", () => {
	it("keeps secret files and always, and nothing when nothing is left", () => {
		expect(tightenUntrustedFlow({ secret_files: ["a/**"], redact_model_context: "always" }, [])).toEqual({ flow: { secret_files: ["a/**"], redact_model_context: "always" }, dropped: [] });
		const none = tightenUntrustedFlow({ sinks: [{ sink: "llm:*", trust: "trusted", max: "secret" }], redact_model_context: "never" }, []);
		expect(none.flow).toBeUndefined();
		expect(none.dropped.map((d) => d.item)).toEqual(["flow.sinks[0] llm:*", "flow.redact_model_context: never"]);
	});
});
