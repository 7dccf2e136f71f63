import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PatternIndex } from "./pattern-index.js";
import { literalPrefix, parsePattern, patternMatches } from "./resource-pattern.js";

describe("literalPrefix", () => {
	const rows: [string, string][] = [
		["fs:src/a.ts", "src/a.ts"],
		["fs:src/*.ts", "src/"],
		["fs:src/**", "src"],
		["fs:**", ""],
		["fs:**/.env*", ""],
		["fs:a/?/b", "a/"],
		["shell:git *", "git "],
		["shell:npm run task2 *", "npm run task2 "],
		["net:https://*.example.com:443", "https://"],
		["net:https://api.example.com:443", "https://api.example.com:443"],
		["llm:*", ""],
		["human:terminal", "terminal"],
	];
	for (const [pattern, prefix] of rows) {
		it(`${pattern} → ${JSON.stringify(prefix)}`, () => {
			expect(literalPrefix(parsePattern(pattern))).toBe(prefix);
		});
	}
});

/** The pattern's text with each run of glob characters replaced by the next of `fills`. */
function fillIn(pattern: string, fills: readonly string[]): string {
	let n = 0;
	return pattern.replace(/[*?]+/g, () => fills[n++ % fills.length]!);
}

describe("PatternIndex", () => {
	it("refuses positions out of order, so candidates stay in the order patterns were added", () => {
		const index = new PatternIndex();
		index.add(parsePattern("fs:a"), 3);
		expect(() => index.add(parsePattern("fs:b"), 3)).toThrow("pattern positions must ascend: 3 after 3");
	});

	it("returns nothing for a resource of no kind or of a kind it holds no pattern for", () => {
		const index = new PatternIndex();
		index.add(parsePattern("fs:**"), 0);
		expect(index.candidates("mcp:tool")).toEqual([]);
		expect(index.candidates("shell:ls")).toEqual([]);
		expect(index.candidates("fs")).toEqual([]);
		expect(index.candidates("fs:")).toEqual([0]);
	});

	it("keeps every matching pattern among the candidates, ascending, over random patterns and resources", () => {
		const kind = fc.constantFrom("fs", "shell", "net", "llm", "human");
		const glob = fc.array(fc.constantFrom("a", "b", "/", ".", "*", "**", "?"), { minLength: 1, maxLength: 6 }).map((t) => t.join(""));
		const pattern = fc.tuple(kind, glob).map(([k, g]) => `${k}:${g}`);
		const resource = fc.oneof(
			fc.tuple(kind, fc.array(fc.constantFrom("a", "b", "/", "."), { maxLength: 7 })).map(([k, t]) => `${k}:${t.join("")}`),
			fc.constantFrom("mcp:a", "a", "", "fs"),
		);
		// Most resources are a pattern with its glob characters filled in, so that many match something.
		const filled = fc.tuple(fc.nat(), fc.array(fc.constantFrom("", "a", "b/a", ".", "/"), { minLength: 6, maxLength: 6 }));
		let matched = 0;
		fc.assert(
			fc.property(fc.array(pattern, { maxLength: 30 }), fc.array(fc.oneof(resource, filled), { minLength: 1, maxLength: 10 }), (texts, asked) => {
				const parsed = texts.map((t) => parsePattern(t));
				const resources = asked.map((r) => (typeof r === "string" ? r : fillIn(texts[r[0] % Math.max(1, texts.length)] ?? "fs:a", r[1])));
				const index = new PatternIndex();
				for (const [i, p] of parsed.entries()) index.add(p, i);
				for (const r of resources) {
					const candidates = index.candidates(r);
					const matching = parsed.flatMap((p, i) => (patternMatches(p, r) ? [i] : []));
					matched += matching.length;
					expect(candidates.filter((i) => patternMatches(parsed[i]!, r))).toEqual(matching);
					expect([...candidates].sort((a, b) => a - b)).toEqual(candidates);
					expect(new Set(candidates).size).toBe(candidates.length);
				}
			}),
			{ seed: 1201, numRuns: 300 },
		);
		// Worth something only if many resources are matched at all.
		expect(matched).toBeGreaterThan(500);
	});
});
