import { existsSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Budget } from "./budget/budget.js";
import { BudgetExhaustedError } from "./budget/budget-errors.js";
import type { BudgetLimits } from "./budget/budget-types.js";
import type { EffectRecord } from "./effects.js";
import { createKernel } from "./kernel.js";
import type { KernelPrimitives } from "./primitives.js";
import { createTempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let ws: TempWorkspace;
let effects: EffectRecord[];
beforeEach(() => {
	ws = createTempWorkspace();
	effects = [];
});
afterEach(() => ws.cleanup());

/** A kernel charging a call budget under a session budget with `limits`. */
function metered(limits: BudgetLimits): { kernel: KernelPrimitives; session: Budget; call: Budget } {
	const session = new Budget("session", limits);
	const call = session.child("turn").child("call");
	const kernel = createKernel({
		workspace: ws.dir,
		callId: "call-1",
		signal: ws.controller.signal,
		recordEffect: async (e) => {
			effects.push(e);
		},
		budget: call,
	});
	return { kernel, session, call };
}

describe("fs.read under a budget", () => {
	it("charges the bytes read to every budget of the chain", async () => {
		ws.put({ "a.txt": "0123456789" });
		const { kernel, session } = metered({ bytes_read: 25 });
		await kernel.fs.read("a.txt");
		await kernel.fs.read("a.txt");
		expect(session.usage().bytes_read).toEqual({ used: 20, limit: 25 });
		expect(session.holding("bytes_read")).toBe(0);
	});

	it("refuses a file larger than what is left before reading it, holding nothing", async () => {
		ws.put({ "big.txt": "x".repeat(64) });
		const { kernel, session, call } = metered({ bytes_read: 63 });
		const err = await kernel.fs.read("big.txt").catch((e: unknown) => e);
		expect(err).toBeInstanceOf(BudgetExhaustedError);
		expect(err).toMatchObject({ counter: "bytes_read", scope: "session", limit: 63, used: 0, requested: 64 });
		expect(call.refusal).toBe(err);
		expect(session.usage().bytes_read.used).toBe(0);
		expect(session.holding("bytes_read")).toBe(0);
	});

	it("releases the hold when the read itself fails", async () => {
		ws.put({ "big.txt": "0123456789" });
		const { kernel, session } = metered({ bytes_read: 100 });
		await expect(kernel.fs.read("big.txt", { maxBytes: 5 })).rejects.toThrow(/more than the 5 bytes allowed/);
		expect(session.usage().bytes_read.used).toBe(0);
		expect(session.holding("bytes_read")).toBe(0);
	});
});

describe("fs.write under a budget", () => {
	it("charges the content's byte length, multi-byte characters counted as bytes", async () => {
		const { kernel, session } = metered({ bytes_written: 100 });
		await kernel.fs.write("h.txt", "héllo");
		expect(session.usage().bytes_written).toEqual({ used: 6, limit: 100 });
	});

	it("refuses content that does not fit: no file, no effect record", async () => {
		const { kernel, session } = metered({ bytes_written: 5 });
		await expect(kernel.fs.write("h.txt", "héllo")).rejects.toMatchObject({ counter: "bytes_written", used: 0, requested: 6 });
		expect(existsSync(path.join(ws.dir, "h.txt"))).toBe(false);
		expect(effects).toEqual([]);
		expect(session.usage().bytes_written.used).toBe(0);
	});
});

describe("shell.exec under a budget", () => {
	it("holds the timeout while the command runs and settles the time it took", async () => {
		const { kernel, session } = metered({ shell_ms: 20_000 });
		const outcome = await kernel.shell.exec("echo hi", { timeoutMs: 15_000, maxOutputBytes: 1000 });
		expect(outcome.stdout).toBe("hi\n");
		const used = session.usage().shell_ms.used;
		expect(used).toBe(Math.ceil(outcome.durationMs));
		expect(used).toBeLessThan(15_000);
		expect(session.holding("shell_ms")).toBe(0);
		// Only the time used was kept, so a second command with the same timeout still fits.
		await kernel.shell.exec("true", { timeoutMs: 15_000, maxOutputBytes: 1000 });
	});

	it("refuses a timeout larger than what is left before spawning anything", async () => {
		const { kernel, session } = metered({ shell_ms: 999 });
		await expect(kernel.shell.exec("touch marker", { timeoutMs: 1000, maxOutputBytes: 1000 })).rejects.toMatchObject({
			name: "BudgetExhaustedError",
			counter: "shell_ms",
			limit: 999,
			requested: 1000,
		});
		// Give a spawned process time to have run, had there been one.
		await new Promise((r) => setTimeout(r, 200));
		expect(existsSync(path.join(ws.dir, "marker"))).toBe(false);
		expect(effects).toEqual([]);
		expect(session.usage().shell_ms.used).toBe(0);
	});
});

describe("primitives without a budget", () => {
	it("count nothing and refuse nothing", async () => {
		ws.put({ "a.txt": "abc" });
		await expect(ws.kernel.fs.read("a.txt")).resolves.toMatchObject({ bytes: 3 });
		await expect(ws.kernel.fs.write("b.txt", "x".repeat(10_000))).resolves.toMatchObject({ bytesWritten: 10_000 });
	});
});
