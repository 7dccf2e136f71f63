import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GovernedReadReport } from "./bench-types.js";
import { governedReadSection } from "./bench-table.js";
import { COMPONENTS } from "./call-breakdown.js";
import { benchGovernedRead } from "./governed-read.js";

describe("benchGovernedRead with tiny parameters", () => {
	let tempDir: string;
	let report: GovernedReadReport;

	beforeAll(async () => {
		tempDir = mkdtempSync(join(tmpdir(), "warden-governed-read-test-"));
		report = await benchGovernedRead({ readCalls: 3, rounds: 2, warmupRounds: 1, fileBytes: 4096, inMemorySplit: true, tempDir, onProgress: () => {} });
	}, 60_000);

	afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

	it("measures the durable variant against a read plus one fsync'd append of its own evidence, and the in-memory one against the bare read", () => {
		expect(report.durableYardstick.samplesUs).toHaveLength(2);
		expect(report.ratio).toBeCloseTo(report.governed.medianUs / report.durableYardstick.medianUs, 10);
		expect(report.inMemoryRatio).toBeCloseTo(report.governedInMemory!.medianUs / report.direct.medianUs, 10);
		// The appended bytes are the turn's own events, records and messages: more than a read's result message.
		expect(report.evidenceBytesPerCall).toBeGreaterThan(report.fileBytes);
	});

	it("counts the commits of the measured turns: one per model call, none of a read's own, not one per write", () => {
		// Each step: the model request's commit before it is sent, which also makes the read before it durable;
		// the turn adds its start, the last request (the final answer) and its end. Several writes share a commit.
		// A call slower than the deferral deadline, or a compaction, may add a commit, never remove one.
		const commits = Math.round(report.commitsPerCall * report.callsPerRound * report.rounds) / report.rounds;
		expect(commits).toBeGreaterThanOrEqual(report.callsPerRound + 3);
		const { events, auditRecords } = report.evidencePerTurn;
		expect(commits).toBeLessThan((events + auditRecords) / 2);
	});

	it("prints the durable yardstick and the commits per call", () => {
		const text = governedReadSection(report);
		expect(text.some((line) => line.includes("durable yardstick"))).toBe(true);
		expect(text.some((line) => /store commits per governed call/.test(line))).toBe(true);
	});
});

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
