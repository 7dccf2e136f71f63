import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { benchAppends } from "./appends.js";
import { benchAuditInput } from "./evidence-mix.js";
import { MemoryStore } from "./memory-store.js";

describe("benchAppends", () => {
	it("appends the same number of events and audit records to the store under test in every round, warm-up included", async () => {
		const dir = mkdtempSync(join(tmpdir(), "warden-appends-test-"));
		try {
			const store = new MemoryStore();
			const logFile = join(dir, "log.jsonl");
			const report = await benchAppends({ store, logFile, session: "s", appendsPerRound: 4, rounds: 2, warmupRounds: 1, onProgress: () => {} });
			expect((await store.listEvents("s")).length).toBe(12);
			expect((await store.listAudit({ session: "s" })).length).toBe(12);
			// The yardstick wrote one JSON line per append, the same audit inputs the store got.
			const lines = readFileSync(logFile, "utf8").trimEnd().split("\n");
			expect(lines).toHaveLength(12);
			expect(JSON.parse(lines[5]!)).toEqual(benchAuditInput("s", 5));
			expect(report.auditBytes).toBeCloseTo(lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0) / 12, 6);
			for (const timing of [report.yardstick, report.event, report.audit, report.auditInMemory]) expect(timing.samplesUs).toHaveLength(2);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
