import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { benchGroupCommit } from "./group-commit.js";

describe("benchGroupCommit", () => {
	it("appends the same records in every variant, groups the sessions' appends, and reports their waits", async () => {
		const report = await benchGroupCommit({ sessions: 4, recordsPerRound: 10, rounds: 2, warmupRounds: 1, tempDir: tmpdir(), onProgress: () => {} });
		// 10 records split over 4 sessions is 2 each: every variant appends 8 per round.
		expect(report.recordsPerRound).toBe(8);
		for (const timing of [report.yardstick, report.oneSession, report.concurrent]) expect(timing.samplesUs).toHaveLength(2);
		// Four sessions waiting at once share transactions; one session alone never can.
		expect(report.meanBatch).toBeGreaterThan(1);
		expect(report.meanBatch).toBeLessThanOrEqual(4);
		expect(report.ratio).toBeCloseTo(report.concurrent.perSecond / report.yardstick.perSecond, 9);
		expect(report.lockWaits).toBeGreaterThan(0);
		expect(report.appendWaitP99Us).toBeGreaterThan(0);
	});

	it("refuses fewer than two sessions", async () => {
		await expect(benchGroupCommit({ sessions: 1, recordsPerRound: 4, rounds: 1, warmupRounds: 0, tempDir: tmpdir(), onProgress: () => {} })).rejects.toThrow(/sessions must be at least 2, got 1/);
	});
});
