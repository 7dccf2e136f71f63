import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { patternMatches } from "../authority/resource-pattern.js";
import type { SinkRule } from "./flow-types.js";
import { FlowConfigError } from "./flow-errors.js";
import { UNMATCHED_RULE, checkSinkRules, createSinkRegistry, defaultSinkRules } from "./sink-registry.js";

describe("checkSinkRules", () => {
	it("accepts well-formed rules and fills the source", () => {
		const rules = checkSinkRules(
			[
				{ sink: "net:https://api.example.com:443", trust: "trusted", max: "internal", release: "secret" },
				// Untrusted: nothing above internal on its own, but a human may release one payload at a time.
				{ sink: "net:http://127.0.0.1:*", trust: "untrusted", max: "internal", release: "secret" },
				{ sink: "net:http://127.0.0.1:*", trust: "untrusted", max: "public", release: "internal", min_integrity: "trusted", source: "eval" },
			],
			"flow.sinks",
			"host",
		);
		expect(rules).toEqual([
			{ sink: "net:https://api.example.com:443", trust: "trusted", max: "internal", release: "secret", source: "host" },
			{ sink: "net:http://127.0.0.1:*", trust: "untrusted", max: "internal", release: "secret", source: "host" },
			{ sink: "net:http://127.0.0.1:*", trust: "untrusted", max: "public", release: "internal", min_integrity: "trusted", source: "eval" },
		]);
		expect(checkSinkRules(undefined, "flow.sinks", "host")).toEqual([]);
	});

	const bad: [unknown, RegExp][] = [
		["nope", /^flow\.sinks must be a list/],
		[[42], /^flow\.sinks\[0\] must be a mapping/],
		[[{ sink: "net:x", trust: "trusted", max: "public", colour: "red" }], /^flow\.sinks\[0\]\.colour: unknown key/],
		[[{ sink: "web:x", trust: "trusted", max: "public" }], /^flow\.sinks\[0\]\.sink: resource pattern/],
		[[{ sink: "", trust: "trusted", max: "public" }], /^flow\.sinks\[0\]\.sink must be/],
		[[{ sink: "net:x", trust: "maybe", max: "public" }], /^flow\.sinks\[0\]\.trust must be one of trusted, untrusted/],
		[[{ sink: "net:x", trust: "trusted", max: "top" }], /^flow\.sinks\[0\]\.max must be one of public, internal, secret/],
		[[{ sink: "net:x", trust: "trusted", max: "public", release: "x" }], /^flow\.sinks\[0\]\.release must be one of/],
		[[{ sink: "net:x", trust: "trusted", max: "public", min_integrity: "x" }], /^flow\.sinks\[0\]\.min_integrity must be one of/],
		[[{ sink: "net:x", trust: "untrusted", max: "secret" }], /^flow\.sinks\[0\]\.max: an untrusted sink clears at most internal/],
		[[{ sink: "net:x", trust: "trusted", max: "internal", release: "internal" }], /^flow\.sinks\[0\]\.release must be above max \(internal\)/],
		[[{ sink: "net:x", trust: "trusted", max: "secret", release: "public" }], /^flow\.sinks\[0\]\.release must be above max/],
	];
	for (const [spec, message] of bad) {
		it(`refuses ${JSON.stringify(spec)}`, () => {
			let caught: unknown;
			try {
				checkSinkRules(spec, "flow.sinks", "host");
			} catch (err) {
				caught = err;
			}
			expect(caught).toBeInstanceOf(FlowConfigError);
			expect((caught as Error).message).toMatch(message);
			expect((caught as Error).message).not.toContain("\n");
		});
	}
});

describe("defaultSinkRules", () => {
	it("trusts a local model with secrets and bounds a remote one to internal", () => {
		const local = defaultSinkRules({ model: { sink: "llm:scripted", local: true } });
		expect(local[0]).toEqual({ sink: "llm:scripted", trust: "trusted", max: "secret", source: "default: local model" });
		const remote = defaultSinkRules({ model: { sink: "llm:openai", local: false } });
		expect(remote[0]).toMatchObject({ sink: "llm:openai", trust: "untrusted", max: "internal" });
		expect(remote.some((r) => r.sink === "fs:**" && r.trust === "trusted" && r.max === "secret")).toBe(true);
		expect(remote.some((r) => r.sink === "human:*" && r.trust === "trusted" && r.max === "secret")).toBe(true);
		expect(defaultSinkRules({}).some((r) => r.sink.startsWith("llm:"))).toBe(false);
	});
});

describe("createSinkRegistry", () => {
	const host = checkSinkRules(
		[
			{ sink: "net:http://127.0.0.1:4100", trust: "trusted", max: "secret" },
			{ sink: "net:http://127.0.0.1:*", trust: "untrusted", max: "public" },
		],
		"flow.sinks",
		"host",
	);
	const registry = createSinkRegistry([...host, ...defaultSinkRules({ model: { sink: "llm:openai", local: false } })]);

	it("takes the first matching rule and names it", () => {
		expect(registry.resolve("net:http://127.0.0.1:4100")).toEqual({ sink: "net:http://127.0.0.1:4100", trust: "trusted", max: "secret", rule: "net:http://127.0.0.1:4100 (host)" });
		expect(registry.resolve("net:http://127.0.0.1:9")).toMatchObject({ trust: "untrusted", max: "public", rule: "net:http://127.0.0.1:* (host)" });
		expect(registry.resolve("fs:notes/a.md")).toMatchObject({ trust: "trusted", max: "secret" });
		expect(registry.resolve("llm:openai")).toMatchObject({ trust: "untrusted", max: "internal", rule: "llm:openai (default: remote model)" });
	});

	it("treats an unmatched sink as untrusted, clearing internal", () => {
		expect(registry.resolve("net:https://evil.example:443")).toEqual({ sink: "net:https://evil.example:443", trust: "untrusted", max: "internal", rule: UNMATCHED_RULE });
		expect(registry.resolve("agent:child")).toMatchObject({ trust: "untrusted", rule: UNMATCHED_RULE });
	});

	it("has a generation that follows its rules, not their key order", () => {
		const again = createSinkRegistry([...host, ...defaultSinkRules({ model: { sink: "llm:openai", local: false } })]);
		expect(again.generation).toBe(registry.generation);
		expect(registry.generation).toMatch(/^[0-9a-f]{64}$/);
		const reordered = createSinkRegistry(host.map((r) => ({ source: r.source, max: r.max, trust: r.trust, sink: r.sink })));
		expect(reordered.generation).toBe(createSinkRegistry(host).generation);
		const changed = createSinkRegistry([{ ...host[0]!, max: "internal" }, host[1]!]);
		expect(changed.generation).not.toBe(createSinkRegistry(host).generation);
	});

	it("resolves through its index to the rule a scan in order finds first, over random rules and sinks", () => {
		const kind = fc.constantFrom("fs", "net", "llm", "human", "shell");
		const glob = fc.array(fc.constantFrom("a", "b", "/", ":", "*", "**", "?"), { minLength: 1, maxLength: 5 }).map((t) => t.join(""));
		const rule = fc.record({ sink: fc.tuple(kind, glob).map(([k, g]) => `${k}:${g}`), trust: fc.constantFrom("trusted", "untrusted") });
		const sink = fc.oneof(
			fc.tuple(kind, fc.array(fc.constantFrom("a", "b", "/", ":"), { maxLength: 6 })).map(([k, t]) => `${k}:${t.join("")}`),
			fc.constantFrom("agent:child", "a", ""),
		);
		// Most sinks are a rule's own pattern with its glob characters filled in, so that many match.
		const filled = fc.tuple(fc.nat(), fc.array(fc.constantFrom("", "a", "b/a", ":"), { minLength: 4, maxLength: 4 }));
		let matched = 0;
		fc.assert(
			fc.property(fc.array(rule, { maxLength: 30 }), fc.array(fc.oneof(sink, filled), { minLength: 1, maxLength: 12 }), (specs, asked) => {
				// Each rule's source is its position, so the rule named tells which one was taken.
				const rules: SinkRule[] = specs.map((r, i) => ({ sink: r.sink, trust: r.trust as SinkRule["trust"], max: "internal", source: `rule ${i}` }));
				const registry = createSinkRegistry(rules);
				const sinks = asked.map((a) => {
					if (typeof a === "string") return a;
					let n = 0;
					return (rules[a[0] % Math.max(1, rules.length)]?.sink ?? "fs:a").replace(/[*?]+/g, () => a[1][n++ % a[1].length]!);
				});
				for (const s of sinks) {
					const first = rules.find((r) => patternMatches(r.sink, s));
					if (first) matched++;
					expect(registry.resolve(s)).toEqual(first ? { sink: s, trust: first.trust, max: first.max, rule: `${first.sink} (${first.source})` } : { sink: s, trust: "untrusted", max: "internal", rule: UNMATCHED_RULE });
				}
			}),
			{ seed: 1205, numRuns: 300 },
		);
		expect(matched).toBeGreaterThan(300);
	});
});
