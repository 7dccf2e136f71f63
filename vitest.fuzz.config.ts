import { defineConfig } from "vitest/config";

/**
 * `npm run fuzz`: only the property-based tests (`*.fuzz.test.ts`), each with its share of
 * FUZZ_RUNS cases. `npm test` runs the same files through vitest.config.ts with a small bounded count.
 */
export default defineConfig({
	test: {
		include: ["src/**/*.fuzz.test.ts"],
		testTimeout: 3_600_000,
		hookTimeout: 60_000,
		pool: "forks",
		// Cases per property family (src/test-support/fuzz-runs.ts); FUZZ_RUNS=1000 npm run fuzz for a quick pass.
		env: { FUZZ_RUNS: process.env.FUZZ_RUNS ?? "100000" },
	},
});
