import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ModelError } from "../provider.js";
import { TEST_LLAMA_RUNTIME } from "../test-support/llama-test-runtime.js";
import { probeCacheDir, probeModel } from "./llama-probe.js";
import { locateLlamaRuntime } from "./llama-runtime.js";
import { writeSyntheticGguf } from "./synthetic-gguf.js";

const found = locateLlamaRuntime(TEST_LLAMA_RUNTIME);
const entry = "entry" in found ? found.entry : "";
const dir = mkdtempSync(join(tmpdir(), "warden-llama-probe-"));

// Each probe starts a node process that loads llama.cpp: slow on a busy machine.
const PROBE_TIMEOUT = 90_000;

describe("probeModel", () => {
	it("loads a good model in a child process and remembers that it passed", async () => {
		const runtimeDir = mkdtempSync(join(tmpdir(), "warden-llama-probed-"));
		const file = join(dir, "good.gguf");
		await writeSyntheticGguf(file);
		await probeModel(entry, file, runtimeDir);
		expect(readdirSync(probeCacheDir(runtimeDir))).toHaveLength(1);
		// Remembered: a second probe finds the marker and starts no child.
		await probeModel(entry, file, runtimeDir);
		expect(readdirSync(probeCacheDir(runtimeDir))).toHaveLength(1);
	}, PROBE_TIMEOUT);

	it("reports a model that would abort the process in one line, and this process lives on", async () => {
		const runtimeDir = mkdtempSync(join(tmpdir(), "warden-llama-probed-"));
		const file = join(dir, "no-embedding.gguf");
		await writeSyntheticGguf(file, { omitKey: "llama.embedding_length" });
		const error = await probeModel(entry, file, runtimeDir).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ModelError);
		const message = (error as Error).message;
		expect(message).toMatch(new RegExp(`^llama model ${file} failed to load: .*(embedding_length|the loader)`));
		expect(message).not.toContain("\n");
		expect(existsSync(probeCacheDir(runtimeDir))).toBe(false);
	}, PROBE_TIMEOUT);

	it("reports a file that is not a GGUF, and a path that is not there", async () => {
		const runtimeDir = mkdtempSync(join(tmpdir(), "warden-llama-probed-"));
		const notGguf = join(dir, "text.gguf");
		await import("node:fs/promises").then((fs) => fs.writeFile(notGguf, "hello, not a model\n"));
		await expect(probeModel(entry, notGguf, runtimeDir)).rejects.toThrow(new RegExp(`^llama model ${notGguf} failed to load: `));
		await expect(probeModel(entry, join(dir, "absent.gguf"), runtimeDir)).rejects.toThrow(`llama model ${join(dir, "absent.gguf")} cannot be read: ENOENT`);
		await expect(probeModel(entry, dir, runtimeDir)).rejects.toThrow(`llama model ${dir} is not a file`);
	}, PROBE_TIMEOUT);
});
