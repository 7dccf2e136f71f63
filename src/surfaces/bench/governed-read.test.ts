import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GovernedReadReport } from "./bench-types.js";
import { governedReadSection } from "./bench-table.js";
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

	it("counts the commits of the measured turns: one per read and one per model call, not one per write", () => {
		// Each step: the read's commit when it ends, the model request's before it is sent; the turn adds its
		// number, the last request (the final answer) and its end. Several writes of each call share its commit.
		// A call slower than the deferral deadline may add a commit of its own, never remove one.
		const commits = Math.round(report.commitsPerCall * report.callsPerRound * report.rounds) / report.rounds;
		expect(commits).toBeGreaterThanOrEqual(2 * report.callsPerRound + 3);
		const { events, auditRecords } = report.evidencePerTurn;
		expect(commits).toBeLessThan((events + auditRecords) / 2);
	});

	it("prints the durable yardstick and the commits per call", () => {
		const text = governedReadSection(report);
		expect(text.some((line) => line.includes("durable yardstick"))).toBe(true);
		expect(text.some((line) => /store commits per governed call/.test(line))).toBe(true);
	});
});
