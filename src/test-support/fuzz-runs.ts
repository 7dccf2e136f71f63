/**
 * How many cases a property-based test runs. `npm test` runs a small, fixed-seed sample of every
 * property; `npm run fuzz` sets FUZZ_RUNS (cases per property family, 100 000 there) and each
 * property takes its share of that, under its own fixed seed unless FUZZ_SEED names another.
 */
import type { Parameters } from "fast-check";

/** The seed of the bounded runs in `npm test`; fixed so that a failure there reproduces. */
const BOUNDED_SEED = 20_261_101;
/** The default seed of the long runs: a different one, so they explore cases `npm test` does not. */
const FUZZ_SEED = 424_242;

function positiveInteger(name: string, text: string | undefined): number | undefined {
	if (text === undefined || text === "") return undefined;
	const value = Number(text);
	if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(text)}`);
	return value;
}

const familyRuns = positiveInteger("FUZZ_RUNS", process.env.FUZZ_RUNS);
const seed = positiveInteger("FUZZ_SEED", process.env.FUZZ_SEED) ?? (familyRuns === undefined ? BOUNDED_SEED : FUZZ_SEED);

/** True under `npm run fuzz`. */
export const LONG_FUZZ = familyRuns !== undefined;

/**
 * fast-check parameters for one property: `bounded` cases in `npm test`, `share` of the family's
 * FUZZ_RUNS under `npm run fuzz` (the shares of one family's properties add up to 1).
 */
export function fuzzRuns<T>(bounded: number, share: number): Parameters<T> {
	const numRuns = familyRuns === undefined ? bounded : Math.max(1, Math.round(familyRuns * share));
	return { seed, numRuns };
}

/** Per-test time limit: vitest's default in `npm test`, none worth hitting under `npm run fuzz`. */
export const FUZZ_TIMEOUT_MS = LONG_FUZZ ? 3_600_000 : 60_000;
