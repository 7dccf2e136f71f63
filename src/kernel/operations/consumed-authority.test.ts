import { describe, expect, it } from "vitest";
import type { GrantUse, OperationIntent } from "./operation-types.js";
import { consumingLog } from "./consumed-authority.js";
import type { OperationLog } from "./protected-operation.js";

type Prepared = Omit<OperationIntent, "id" | "session" | "turn" | "created_at">;

function recordingLog(): { log: OperationLog; prepared: Prepared[] } {
	const prepared: Prepared[] = [];
	const log: OperationLog = {
		prepare: async (intent) => {
			prepared.push(intent);
			return `op_${prepared.length}`;
		},
		dispatched: async () => undefined,
		settle: async () => undefined,
	};
	return { log, prepared };
}

const base: Prepared = { call_id: "c1", kind: "fs.write", resource: "fs:a", intent: { path: "a" }, reserved: {} };

describe("consumingLog", () => {
	it("writes the call's lease on each intent and the grant uses spent since the previous one", async () => {
		const { log, prepared } = recordingLog();
		const pending: GrantUse[] = [{ holder: "session:s", grant: "once" }];
		const wrapped = consumingLog(log, { takeUses: () => pending.splice(0) }, "lease_1");
		expect(await wrapped.prepare(base)).toBe("op_1");
		await wrapped.prepare(base);
		expect(prepared.map((p) => p.consumed)).toEqual([{ lease: "lease_1", grants: [{ holder: "session:s", grant: "once" }] }, { lease: "lease_1" }]);
	});

	it("leaves an intent that consumed nothing as it was", async () => {
		const { log, prepared } = recordingLog();
		await consumingLog(log, { takeUses: () => [] }, undefined).prepare(base);
		await consumingLog(log, undefined, undefined).prepare(base);
		expect(prepared).toEqual([base, base]);
	});
});
