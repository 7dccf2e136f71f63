import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePattern, patternContains, patternMatches } from "./resource-pattern.js";

describe("resource patterns", () => {
	it("keeps * and ? within one path segment for fs, and lets ** span them", () => {
		expect(patternMatches("fs:src/*.ts", "fs:src/a.ts")).toBe(true);
		expect(patternMatches("fs:src/*.ts", "fs:src/lib/a.ts")).toBe(false);
		expect(patternMatches("fs:src/**", "fs:src/lib/a.ts")).toBe(true);
		expect(patternMatches("fs:?.md", "fs:a.md")).toBe(true);
		expect(patternMatches("fs:?.md", "fs:/.md")).toBe(false);
		expect(patternMatches("fs:**", "fs:.")).toBe(true);
	});

	it("lets a trailing /** cover the directory itself, and nothing beside it", () => {
		expect(patternMatches("fs:secrets/**", "fs:secrets")).toBe(true);
		expect(patternMatches("fs:secrets/**", "fs:secrets/key")).toBe(true);
		expect(patternMatches("fs:secrets/**", "fs:secrets-not")).toBe(false);
	});

	it("lets * span anything in non-fs kinds, and never matches across kinds", () => {
		expect(patternMatches("shell:git *", "shell:git log --oneline src/a.ts")).toBe(true);
		expect(patternMatches("shell:git *", "shell:gitx")).toBe(false);
		expect(patternMatches("net:https://*.example.com:443", "net:https://api.example.com:443")).toBe(true);
		expect(patternMatches("fs:**", "shell:ls")).toBe(false);
	});

	it("treats regex metacharacters literally", () => {
		expect(patternMatches("shell:echo (a|b)", "shell:echo (a|b)")).toBe(true);
		expect(patternMatches("shell:echo (a|b)", "shell:echo a")).toBe(false);
	});

	it("refuses a pattern without a known kind or without a glob", () => {
		expect(() => parsePattern("src/**")).toThrow(/must start with fs:/);
		expect(() => parsePattern("fs:")).toThrow(/names nothing/);
	});

	it("decides containment conservatively", () => {
		expect(patternContains("fs:**", "fs:src/**")).toBe(true);
		expect(patternContains("fs:src/**", "fs:src/*.ts")).toBe(true);
		expect(patternContains("fs:src/**", "fs:src")).toBe(true);
		expect(patternContains("fs:src/*", "fs:src/**")).toBe(false);
		expect(patternContains("fs:src/**", "fs:**")).toBe(false);
		expect(patternContains("fs:src/*.ts", "fs:src/a?.ts")).toBe(true);
		expect(patternContains("fs:src/?.ts", "fs:src/*.ts")).toBe(false);
		expect(patternContains("shell:git *", "shell:git log *")).toBe(true);
		expect(patternContains("shell:git log *", "shell:git *")).toBe(false);
		expect(patternContains("fs:**", "shell:ls")).toBe(false);
	});

	it("is sound: whatever a contained pattern matches, its container matches too", () => {
		const token = fc.constantFrom("a", "b", "/", "*", "**", "?");
		const glob = fc.array(token, { minLength: 1, maxLength: 6 }).map((t) => t.join(""));
		const kind = fc.constantFrom("fs", "shell");
		const text = fc.array(fc.constantFrom("a", "b", "/"), { maxLength: 7 }).map((t) => t.join(""));
		fc.assert(
			fc.property(kind, glob, glob, fc.array(text, { minLength: 20, maxLength: 20 }), (k, outer, inner, samples) => {
				if (!patternContains(`${k}:${outer}`, `${k}:${inner}`)) return true;
				return samples.every((s) => !patternMatches(`${k}:${inner}`, `${k}:${s}`) || patternMatches(`${k}:${outer}`, `${k}:${s}`));
			}),
			{ numRuns: 3000 },
		);
	});

	it("knows every pattern contains itself", () => {
		const glob = fc.array(fc.constantFrom("a", "/", "*", "**", "?"), { minLength: 1, maxLength: 6 }).map((t) => t.join(""));
		fc.assert(fc.property(glob, (g) => patternContains(`fs:${g}`, `fs:${g}`) && patternContains(`shell:${g}`, `shell:${g}`)));
	});
});
