import { describe, expect, it } from "vitest";
import { benchAuditVerify } from "./audit-verify.js";
import { benchAuditInput } from "./evidence-mix.js";
import { MemoryStore } from "./memory-store.js";

describe("benchAuditVerify", () => {
	it("tops a short chain up to the requested length and verifies all of it in every pass", async () => {
		const store = new MemoryStore();
		for (let i = 0; i < 4; i++) await store.appendAudit(benchAuditInput("s", i));
		const progress: string[] = [];
		const report = await benchAuditVerify({ store, session: "s", chainRecords: 10, rounds: 3, warmupRounds: 0, onProgress: (l) => progress.push(l) });
		expect(report.records).toBe(10);
		expect((await store.listAudit()).length).toBe(10);
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 10 });
		expect(progress[0]).toBe("audit verify: appending 6 records to reach a chain of 10");
		for (const timing of [report.yardstick, report.inMemory, report.sqlite]) expect(timing.samplesUs).toHaveLength(3);
	});

	it("verifies the whole chain when it is already longer than requested, appending nothing", async () => {
		const store = new MemoryStore();
		for (let i = 0; i < 7; i++) await store.appendAudit(benchAuditInput("s", i));
		const report = await benchAuditVerify({ store, session: "s", chainRecords: 3, rounds: 1, warmupRounds: 1, onProgress: () => {} });
		expect(report.records).toBe(7);
		expect((await store.listAudit()).length).toBe(7);
	});
});
