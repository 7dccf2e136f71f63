import { describe, expect, it } from "vitest";
import { runStoreContractTests } from "../../store/test-support/contract-tests.js";
import { STORE_RULES } from "../../kernel/evidence/store-rules.js";
import { MemoryStore } from "./memory-store.js";

runStoreContractTests("in-memory (bench)", STORE_RULES, async () => ({ store: new MemoryStore(), cleanup: async () => {} }));

describe("MemoryStore", () => {
	it("hands out copies, so editing a listed record does not edit the chain", async () => {
		const store = new MemoryStore();
		await store.appendAudit({ session: "s1", turn: 1, kind: "effect", data: { bytes: 5 } });
		const [record] = await store.listAudit();
		record!.data.bytes = 6;
		expect((await store.listAudit())[0]?.data).toEqual({ bytes: 5 });
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 1 });
	});

	it("hands the appender the record's own parse, which the chain does not keep", async () => {
		const store = new MemoryStore();
		const appended = await store.appendAudit({ session: "s1", turn: 1, kind: "effect", data: { nested: { bytes: 5 } } });
		(appended.data.nested as { bytes: number }).bytes = 6;
		appended.hash = "0".repeat(64);
		expect((await store.listAudit())[0]?.data).toEqual({ nested: { bytes: 5 } });
		expect(await store.verifyAudit()).toEqual({ ok: true, checked: 1 });
	});

	it("refuses work once closed", async () => {
		const store = new MemoryStore();
		await store.close();
		await expect(store.listSessions()).rejects.toThrow(/closed/);
	});

	it("refuses a limit that is not a whole number", async () => {
		await expect(new MemoryStore().listAudit({ limit: 1.5 })).rejects.toThrow(/limit must be a whole number/);
	});
});
