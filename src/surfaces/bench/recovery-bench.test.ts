import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../kernel/evidence/store-rows.js";
import type { RecoveryBenchReport } from "./bench-types.js";
import { benchRecovery } from "./recovery-bench.js";

describe("benchRecovery with tiny histories", () => {
	let dir: string;
	let report: RecoveryBenchReport;
	const progress: string[] = [];

	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), "warden-recovery-bench-test-"));
		report = await benchRecovery({ rows: 200, largeRows: 2_000, pending: 20, rounds: 2, warmupRounds: 1, dir, onProgress: (line) => progress.push(line) });
	}, 60_000);

	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("times one reopen per history per measured round, with ratios taken from the medians", () => {
		expect(report).toMatchObject({ pending: 20, rows: 200, largeRows: 2_000, rounds: 2, warmupRounds: 1 });
		for (const timing of [report.yardstick, report.reopen, report.reopenLarge]) {
			expect(timing.samplesUs).toHaveLength(2);
			for (const sample of timing.samplesUs) expect(sample).toBeGreaterThan(0);
		}
		expect(report.ratio).toBeCloseTo(report.reopenLarge.medianUs / report.reopen.medianUs, 10);
		expect(report.reopenRatio).toBeCloseTo(report.reopen.medianUs / report.yardstick.medianUs, 10);
		expect(report.reopenLargeRatio).toBeCloseTo(report.reopenLarge.medianUs / report.yardstick.medianUs, 10);
		expect(report.seedMs.rows).toBeGreaterThan(0);
		expect(report.seedMs.largeRows).toBeGreaterThan(0);
		expect(progress.every((line) => line.startsWith("recovery"))).toBe(true);
	});

	it("seeds each history with the rows asked for, and every reopen settles all its pending rows", async () => {
		const reopens = 1 + 2;
		for (const [name, settledHistory] of [
			["yardstick", 0],
			["rows", 200 - 20],
			["large", 2_000 - 20],
		] as const) {
			const store = openSqliteStore(join(dir, name, "state"), { readOnly: true });
			try {
				expect(await store.listPendingOperations()).toEqual([]);
				const all = await store.listOperations({});
				expect(all).toHaveLength(settledHistory + reopens * 20);
				// Each reopen abandoned the prepared half, committed the reconciled writes, left the commands unknown.
				const recovered = all.filter((o) => o.id.startsWith("op_pending_"));
				const states: Record<string, number> = {};
				for (const o of recovered) states[o.state] = (states[o.state] ?? 0) + 1;
				expect(states).toEqual({ abandoned: reopens * 10, unknown: reopens * 5, committed: reopens * 5 });
				// One record per recovered operation and one recovery.completed per reopen; the chain holds.
				expect(await store.verifyAudit()).toEqual({ ok: true, checked: reopens * 21 });
			} finally {
				await store.close();
			}
		}
	});

	it("refuses sizes that cannot hold the pending rows", async () => {
		const onProgress = () => {};
		await expect(benchRecovery({ rows: 10, largeRows: 100, pending: 20, rounds: 1, warmupRounds: 0, dir, onProgress })).rejects.toThrow(
			"recoveryPending (20) must not exceed recoveryRows (10)",
		);
		await expect(benchRecovery({ rows: 100, largeRows: 50, pending: 20, rounds: 1, warmupRounds: 0, dir, onProgress })).rejects.toThrow(
			"recoveryRows (100) must not exceed recoveryLargeRows (50)",
		);
		expect(readdirSync(dir).sort()).toEqual(["large", "rows", "yardstick"]);
	});
});
