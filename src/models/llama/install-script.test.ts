import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { TEST_LLAMA_RUNTIME } from "../test-support/llama-test-runtime.js";
import { INSTALL_SCRIPT, LLAMA_RUNTIME_VERSION } from "./llama-runtime.js";

const run = (...args: string[]) => spawnSync(process.execPath, [INSTALL_SCRIPT, ...args], { encoding: "utf8" });

describe("scripts/install-llama-runtime.mjs", () => {
	it("leaves a runtime that is already in place alone, saying so in one line", () => {
		const result = run(TEST_LLAMA_RUNTIME);
		expect(result.status).toBe(0);
		expect(result.stdout).toBe(`node-llama-cpp ${LLAMA_RUNTIME_VERSION} already in ${TEST_LLAMA_RUNTIME}\n`);
	});

	it("asks for the directory when none is given", () => {
		const result = run();
		expect(result.status).toBe(2);
		expect(result.stderr).toBe("usage: node scripts/install-llama-runtime.mjs <dir>\n");
	});

	it("pins the same version as the loader", async () => {
		const script = (await import(INSTALL_SCRIPT)) as { LLAMA_RUNTIME_VERSION: string };
		expect(script.LLAMA_RUNTIME_VERSION).toBe(LLAMA_RUNTIME_VERSION);
	});
});
