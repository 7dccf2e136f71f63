import { describe, expect, it } from "vitest";
import { COMPONENTS } from "./call-breakdown.js";
import { benchGovernedRead } from "./governed-read.js";

describe("benchGovernedRead's breakdown", () => {
	it("profiles one more in-memory round and breaks its time per call down by component", async () => {
		const report = await benchGovernedRead({ readCalls: 3, rounds: 2, warmupRounds: 1, fileBytes: 512, inMemorySplit: true, tempDir: "", onProgress: () => {} });
		const b = report.inMemoryBreakdown!;
		expect(b.calls).toBe(3);
		expect(b.profiledUsPerCall).toBeGreaterThan(0);
		expect(b.components.length).toBeGreaterThan(0);
		const known = new Set([...COMPONENTS.map((c) => c.component), "waiting (event loop idle: thread-pool round trips)", "garbage collection", "V8 and Node outside any script", "Node internals (no Warden frame on the stack)"]);
		for (const c of b.components) expect(known).toContain(c.component);
		expect(b.components.reduce((sum, c) => sum + c.usPerCall, 0)).toBeCloseTo(b.profiledUsPerCall, 6);
		expect(b.components.reduce((sum, c) => sum + c.share, 0)).toBeCloseTo(1, 9);
		// The timed rounds are unprofiled: the profiled round is one more, not one of them.
		expect(report.governedInMemory!.samplesUs).toHaveLength(2);
	});

	it("has no breakdown without the in-memory variant", async () => {
		const report = await benchGovernedRead({ readCalls: 2, rounds: 1, warmupRounds: 0, fileBytes: 64, inMemorySplit: false, tempDir: "", onProgress: () => {} });
		expect(report.inMemoryBreakdown).toBeUndefined();
	});
});
