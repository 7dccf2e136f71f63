import { describe, expect, it } from "vitest";
import { globMayNameSecret, pathLabel, secretFileMatcher } from "./file-labels.js";

describe("secretFileMatcher", () => {
	const isSecret = secretFileMatcher();

	it("gives the same answer when asked again, and still the right one after more paths than it remembers", () => {
		const matcher = secretFileMatcher(["private/**"]);
		for (let round = 0; round < 2; round++) {
			expect(matcher(".env")).toBe(true);
			expect(matcher("src/notes.txt")).toBe(false);
			expect(matcher("private/x.txt")).toBe(true);
			expect(matcher(".env.example")).toBe(false);
		}
		for (let i = 0; i < 10_000; i++) expect(matcher(i % 5 === 0 ? `d${i}/.env` : `d${i}/f.txt`)).toBe(i % 5 === 0);
		expect(matcher(".env")).toBe(true);
		expect(matcher(`${"a/".repeat(600)}.env`)).toBe(true);
		expect(matcher(`${"a/".repeat(600)}.env`)).toBe(true);
	});

	it("knows the usual credential files, at any depth", () => {
		for (const rel of [
			".env",
			"app/.env",
			".env.local",
			".env.production",
			"certs/server.pem",
			"tls.key",
			"id_rsa",
			".ssh/id_ed25519",
			"id_ecdsa_sk",
			"store.p12",
			"cert.pfx",
			"vault.kdbx",
			".npmrc",
			".pypirc",
			".netrc",
			".pgpass",
			".git-credentials",
			"credentials",
			"gcp/credentials.json",
			"secrets.yaml",
			"config/secrets.json",
			"db.secret",
			".aws/credentials",
			"home/.aws/credentials",
			".docker/config.json",
			"service-account-prod.json",
			"./.env",
		]) {
			expect(isSecret(rel), rel).toBe(true);
		}
	});

	it("leaves templates, public keys and ordinary files alone", () => {
		for (const rel of [".env.example", "app/.env.sample", ".env.template", ".env.dist", "id_rsa.pub", ".ssh/id_ed25519.pub", "src/env.ts", "README.md", "config.json", "docker/config.json", "keys.md"]) {
			expect(isSecret(rel), rel).toBe(false);
		}
	});

	it("adds the host's globs as written", () => {
		const withExtra = secretFileMatcher(["private/**", "*.pub"]);
		expect(withExtra("private/notes.md")).toBe(true);
		expect(withExtra("id_rsa.pub")).toBe(true);
		expect(withExtra("public/notes.md")).toBe(false);
	});
});

describe("pathLabel", () => {
	it("labels a file by its name, sourced to its content", () => {
		expect(pathLabel(".env", "ab", true)).toEqual({ sensitivity: "secret", integrity: "trusted", sources: [{ kind: "file", ref: ".env", sha256: "ab" }] });
		expect(pathLabel("a.ts", "cd", false)).toMatchObject({ sensitivity: "internal", integrity: "trusted" });
	});
});

describe("globMayNameSecret", () => {
	const isSecret = secretFileMatcher();
	it("catches globs that expand to a secret file's usual name", () => {
		for (const glob of [".e*", ".env*", "*.pem", "keys/*.key", "id_*", ".[e]nv", "~/.ssh/id_*", "deploy/*.p12"]) {
			expect(globMayNameSecret(glob, isSecret), glob).toBe(true);
		}
	});
	it("lets ordinary globs through, and a bare `*` skips dot files as bash does", () => {
		for (const glob of ["*.md", "src/*.ts", "*", "src/*", "README*", ".env", "notes?.txt"]) {
			expect(globMayNameSecret(glob, isSecret), glob).toBe(false);
		}
	});
});
