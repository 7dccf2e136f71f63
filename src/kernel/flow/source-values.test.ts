import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { secretFileMatcher } from "./file-labels.js";
import { label } from "./label.js";
import { sourceSecretValues, type SourceFiles } from "./source-values.js";

let root: string;
let files: SourceFiles;
const isSecret = secretFileMatcher();

beforeEach(async () => {
	root = await mkdtemp(join(tmpdir(), "warden-source-values-"));
	await mkdir(join(root, "ws/config"), { recursive: true });
	await writeFile(join(root, "ws/.env"), "LAUNCH_CODE=7Q-ALPHA-991\n");
	await writeFile(join(root, "ws/config/.env.production"), "DB_URL=postgres://prod-db-host/app\n");
	await writeFile(join(root, "ws/README.md"), "a plain line of text\n");
	await writeFile(join(root, "outside.env"), "OUTSIDE=never-read-value\n");
	await symlink(join(root, "outside.env"), join(root, "ws/link.env"));
	files = { workspace: join(root, "ws"), labelOf: async (rel) => label(isSecret(rel) ? "secret" : "internal", "trusted", { kind: "file", ref: rel }) };
});

afterEach(async () => {
	await rm(root, { recursive: true, force: true });
});

const fileSources = (...refs: string[]) => label("secret", "trusted", ...refs.map((ref) => ({ kind: "file" as const, ref })));

describe("sourceSecretValues", () => {
	it("reads the secret workspace files a secret label names, once each", async () => {
		const seen = new Set<string>();
		expect(await sourceSecretValues(files, fileSources(".env", "./config/.env.production"), seen)).toEqual(["7Q-ALPHA-991", "postgres://prod-db-host/app"]);
		expect(await sourceSecretValues(files, fileSources(".env"), seen)).toEqual([]);
	});

	it("reads nothing for a label that is not secret, a file not secret now, or a source outside the workspace", async () => {
		expect(await sourceSecretValues(files, label("internal", "trusted", { kind: "file", ref: ".env" }), new Set())).toEqual([]);
		expect(await sourceSecretValues(files, fileSources("README.md", "HEAD:.env", "../outside.env", join(root, "outside.env"), "link.env", "missing.env"), new Set())).toEqual([]);
		expect(await sourceSecretValues(files, label("secret", "trusted", { kind: "url", ref: ".env" }), new Set())).toEqual([]);
	});
});
