import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelTransportSection } from "./bench-table.js";
import type { ModelTransportReport } from "./bench-types.js";
import { benchModelTransport } from "./model-transport-bench.js";

describe("benchModelTransport at tiny sizes", () => {
	let dir: string;
	let report: ModelTransportReport;
	const progress: string[] = [];

	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), "warden-transport-bench-test-"));
		report = await benchModelTransport({ calls: 3, downloadBytes: 100_000, rounds: 2, warmupRounds: 1, dir, onProgress: (line) => progress.push(line) });
	}, 60_000);

	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("times each side once per measured round, with ratios from the medians", () => {
		expect(report).toMatchObject({ calls: 3, downloadBytes: 100_000, rounds: 2, warmupRounds: 1 });
		for (const timing of [report.anthropic.sdk, report.anthropic.warden, report.download.fetch, report.download.downloader]) {
			expect(timing.samplesUs).toHaveLength(2);
			for (const sample of timing.samplesUs) expect(sample).toBeGreaterThan(0);
		}
		expect(report.anthropic.ratio).toBeCloseTo(report.anthropic.warden.medianUs / report.anthropic.sdk.medianUs, 10);
		expect(report.download.ratio).toBeCloseTo(report.download.downloader.medianUs / report.download.fetch.medianUs, 10);
		expect(progress).toEqual(["model transport: round 1 of 2", "model transport: round 2 of 2"]);
	});

	it("leaves no download behind and prints one table", () => {
		expect(readdirSync(dir)).toEqual([]);
		const lines = modelTransportSection(report);
		expect(lines[0]).toMatch(/^Model transport on 127\.0\.0\.1/);
		expect(lines.some((line) => line.includes("AnthropicModel.complete"))).toBe(true);
		expect(lines.at(-1)).toMatch(/a download [\d.]+× a bare fetch/);
	});
});
