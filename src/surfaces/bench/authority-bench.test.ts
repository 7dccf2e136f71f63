import { describe, expect, it } from "vitest";
import { benchAuthority, benchLeases, manyGrants, PRESET_GRANTS, requestMix } from "./authority-bench.js";
import type { RateTiming } from "./bench-types.js";

const OPTIONS = { capabilities: 1000, leaseChecks: 20, rounds: 3, warmupRounds: 1, onProgress: () => {} };

function expectRate(timing: RateTiming, rounds: number): void {
	expect(timing.samplesUs).toHaveLength(rounds);
	for (const sample of timing.samplesUs) expect(sample).toBeGreaterThan(0);
	expect(timing.perSecond).toBeCloseTo(1e6 / timing.medianUs, 6);
}

describe("authority benchmark", () => {
	it("holds exactly the capabilities asked for, with unique ids, and a 10-grant preset", () => {
		const grants = manyGrants(1000);
		expect(grants).toHaveLength(1000);
		expect(new Set(grants.map((g) => g.id)).size).toBe(1000);
		expect(grants.some((g) => g.effect === "deny")).toBe(true);
		expect(PRESET_GRANTS).toHaveLength(10);
	});

	it("times both authorities over the same mix, which each admits in part and refuses in part", () => {
		const progress: string[] = [];
		const report = benchAuthority({ ...OPTIONS, onProgress: (l) => progress.push(l) });
		expect(report).toMatchObject({ capabilitiesHeld: 1000, presetGrants: 10, requestsPerRound: requestMix(1000).length, rounds: 3, warmupRounds: 1 });
		for (const n of [report.admitted.held, report.admitted.preset]) {
			expect(n).toBeGreaterThan(0);
			expect(n).toBeLessThan(report.requestsPerRound);
		}
		expectRate(report.held, 3);
		expectRate(report.preset, 3);
		expect(report.ratio).toBeCloseTo(report.held.medianUs / report.preset.medianUs, 10);
		expect(progress[0]).toMatch(/^authority: /);
	});

	it("times a lease grant and consume against the bare digest, every lease admitted", () => {
		const report = benchLeases(OPTIONS);
		expect(report).toMatchObject({ checksPerRound: 20, rounds: 3, warmupRounds: 1 });
		expect(report.argumentsBytes).toBeGreaterThan(100);
		expectRate(report.digest, 3);
		expectRate(report.lease, 3);
		expect(report.ratio).toBeCloseTo(report.lease.medianUs / report.digest.medianUs, 10);
	});
});
