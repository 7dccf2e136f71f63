import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ModelError } from "../provider.js";
import { resolveHfReference } from "./hf-reference.js";
import { modelCacheDir } from "./model-cache.js";

describe("hf:<repo>/<file>", () => {
	it("resolves to Hugging Face's resolve/main URL and a path in the cache", () => {
		expect(resolveHfReference("Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf", { WARDEN_CACHE_DIR: "/c" })).toEqual({
			repo: "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
			file: "qwen2.5-1.5b-instruct-q4_k_m.gguf",
			url: "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf",
			localPath: join("/c", "hf", "Qwen", "Qwen2.5-1.5B-Instruct-GGUF", "qwen2.5-1.5b-instruct-q4_k_m.gguf"),
		});
	});

	it("takes the endpoint from WARDEN_HF_ENDPOINT, then HF_ENDPOINT, and keeps subfolders", () => {
		expect(resolveHfReference("o/r/sub/m.gguf", { WARDEN_HF_ENDPOINT: "http://127.0.0.1:9/", HF_ENDPOINT: "https://mirror" }).url).toBe("http://127.0.0.1:9/o/r/resolve/main/sub/m.gguf");
		expect(resolveHfReference("o/r/m.gguf", { HF_ENDPOINT: "https://hf-mirror.com" }).url).toBe("https://hf-mirror.com/o/r/resolve/main/m.gguf");
	});

	it.each([
		["o/m.gguf", "hf:o/m.gguf is not <owner>/<repo>/<file.gguf>"],
		["o/r/../../etc/m.gguf", "hf:o/r/../../etc/m.gguf is not <owner>/<repo>/<file.gguf>"],
		["o//m.gguf", "hf:o//m.gguf is not <owner>/<repo>/<file.gguf>"],
		["o/r/readme.md", "hf:o/r/readme.md names no .gguf file"],
	])("refuses %s in one line", (reference, expected) => {
		expect(() => resolveHfReference(reference, {})).toThrow(ModelError);
		expect(() => resolveHfReference(reference, {})).toThrow(expected);
	});

	it("the cache is $WARDEN_CACHE_DIR, else $XDG_CACHE_HOME/warden/models, else ~/.cache/warden/models", () => {
		expect(modelCacheDir({ WARDEN_CACHE_DIR: "/w", XDG_CACHE_HOME: "/x" })).toBe("/w");
		expect(modelCacheDir({ XDG_CACHE_HOME: "/x" })).toBe(join("/x", "warden", "models"));
		expect(modelCacheDir({ HOME: "/h" })).toBe(join("/h", ".cache", "warden", "models"));
	});
});
