/**
 * The runtime the tests use: `.llama-runtime/` in the checkout (gitignored), installed once by the
 * vitest global setup, never the user's cache directory.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const TEST_LLAMA_RUNTIME = join(REPO_ROOT, ".llama-runtime");
/** The environment that points every llama: load (in-process or a spawned CLI) at the test runtime. */
export const TEST_LLAMA_ENV = { WARDEN_LLAMA_RUNTIME: TEST_LLAMA_RUNTIME } as const;
