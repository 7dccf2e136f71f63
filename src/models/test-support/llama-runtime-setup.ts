/**
 * Vitest global setup: installs the embedded model runtime into `.llama-runtime/` when it is not
 * there, so `npm test` on a fresh clone needs only the npm registry. A failed install does not stop
 * the other tests; the llama tests then fail with the installer's one-line reason.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT, TEST_LLAMA_RUNTIME } from "./llama-test-runtime.js";

export default function setup(): void {
	const result = spawnSync(process.execPath, [join(REPO_ROOT, "scripts", "install-llama-runtime.mjs"), TEST_LLAMA_RUNTIME], { encoding: "utf8" });
	if (result.status !== 0) process.stderr.write(`${result.stderr.trim() || "warden: llama runtime install failed"} (the llama tests will fail)\n`);
}
