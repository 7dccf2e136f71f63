import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ModelError } from "../provider.js";
import { TEST_LLAMA_RUNTIME } from "../test-support/llama-test-runtime.js";
import { LLAMA_RUNTIME_VERSION, llamaRuntimeDir, loadLlamaRuntime, locateLlamaRuntime } from "./llama-runtime.js";

describe("llamaRuntimeDir", () => {
	const rows = [
		{ env: { WARDEN_LLAMA_RUNTIME: "/opt/llama", XDG_CACHE_HOME: "/c", HOME: "/h" }, dir: "/opt/llama" },
		{ env: { XDG_CACHE_HOME: "/c", HOME: "/h" }, dir: "/c/warden/llama-runtime" },
		{ env: { XDG_CACHE_HOME: "relative/ignored", HOME: "/h" }, dir: "/h/.cache/warden/llama-runtime" },
		{ env: { WARDEN_LLAMA_RUNTIME: "  ", HOME: "/h" }, dir: "/h/.cache/warden/llama-runtime" },
	];
	for (const row of rows) {
		it(`${JSON.stringify(row.env)} -> ${row.dir}`, () => {
			expect(llamaRuntimeDir(row.env)).toBe(row.dir);
		});
	}
});

describe("locateLlamaRuntime", () => {
	it("finds the pinned node-llama-cpp in the test runtime", () => {
		const found = locateLlamaRuntime(TEST_LLAMA_RUNTIME);
		expect(found).toHaveProperty("entry");
		expect("entry" in found && found.entry).toMatch(/node-llama-cpp[/\\]dist[/\\]index\.js$/);
	});

	it("says why a directory does not hold it: absent, or another version", () => {
		const empty = mkdtempSync(join(tmpdir(), "warden-llama-empty-"));
		expect(locateLlamaRuntime(empty)).toEqual({ missing: `node-llama-cpp is not installed in ${empty}` });
		const other = mkdtempSync(join(tmpdir(), "warden-llama-other-"));
		mkdirSync(join(other, "node_modules", "node-llama-cpp"), { recursive: true });
		writeFileSync(join(other, "node_modules", "node-llama-cpp", "package.json"), JSON.stringify({ name: "node-llama-cpp", version: "3.0.0", main: "index.js" }));
		writeFileSync(join(other, "node_modules", "node-llama-cpp", "index.js"), "");
		expect(locateLlamaRuntime(other)).toEqual({ missing: `${other} holds node-llama-cpp 3.0.0, not ${LLAMA_RUNTIME_VERSION}` });
	});
});

describe("loadLlamaRuntime", () => {
	it("imports node-llama-cpp from the runtime directory, not from node_modules", async () => {
		const runtime = await loadLlamaRuntime({ env: { WARDEN_LLAMA_RUNTIME: TEST_LLAMA_RUNTIME }, install: false });
		expect(typeof runtime.getLlama).toBe("function");
		expect(typeof runtime.LlamaChat).toBe("function");
	});

	it("fails in one line naming the directory and the install command when installing is off", async () => {
		const empty = mkdtempSync(join(tmpdir(), "warden-llama-none-"));
		const error = await loadLlamaRuntime({ env: { WARDEN_LLAMA_RUNTIME: empty }, install: false }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ModelError);
		expect((error as Error).message).toMatch(new RegExp(`^llama runtime unavailable: node-llama-cpp is not installed in ${empty} \\(install it: node .*install-llama-runtime\\.mjs ${empty}\\)$`));
	});

	it("says so in one line, and fails in one line, when the install itself fails", async () => {
		// A runtime directory under a regular file cannot be created: the installer fails before reaching npm.
		const base = mkdtempSync(join(tmpdir(), "warden-llama-file-"));
		writeFileSync(join(base, "file"), "");
		const notices: string[] = [];
		const error = await loadLlamaRuntime({ env: { WARDEN_LLAMA_RUNTIME: join(base, "file", "runtime") }, notice: (line) => notices.push(line) }).catch((e: unknown) => e);
		expect(notices).toEqual([`warden: installing node-llama-cpp ${LLAMA_RUNTIME_VERSION} (~83 MB) into ${join(base, "file", "runtime")} for llama: models`]);
		expect(error).toBeInstanceOf(ModelError);
		expect((error as Error).message).toMatch(/^llama runtime install failed: .*(ENOTDIR|EEXIST|not a directory)/);
		expect((error as Error).message).not.toContain("\n");
	});
});
