import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../src/kernel/evidence/event-types.js";
import { expectValidTrace, makeFixture, parseEvents, runCli, runPlan, writePlan } from "./cli-harness.js";

const write = (path: string) => ({ name: "write_file", arguments: { path, content: `${path}\n` } });

function resume(fx: ReturnType<typeof makeFixture>, session: string, steps: Parameters<typeof writePlan>[1], extra: string[], name: string) {
	const plan = writePlan(fx, steps, name);
	return runCli(["run", "continue", "--resume", session, "--model", `scripted:${plan}`, "--state-dir", fx.stateDir, "--json", ...extra]);
}

function finalBudget(events: AnyWardenEvent[]) {
	const done = events.findLast((e) => e.kind === "turn.completed");
	return done?.kind === "turn.completed" ? done.payload.budget : undefined;
}

describe("a resumed session continues its budget (end to end, real CLI, two processes)", () => {
	it("--budget tool_calls=3 over two runs of one session allows 3 in all", async () => {
		const fx = makeFixture();
		const first = await runPlan(fx, [{ tool_calls: [write("a.txt"), write("b.txt")] }, { text: "two written" }], ["--budget", "tool_calls=3"]);
		expect(first.code).toBe(0);
		const session = first.events[0]!.session;
		expect(finalBudget(first.events)).toMatchObject({ tool_calls: { used: 2, limit: 3 }, model_calls: { used: 2 } });

		const second = await resume(fx, session, [{ tool_calls: [write("c.txt")] }, { tool_calls: [write("d.txt")] }, { text: "done" }], ["--budget", "tool_calls=3"], "second.yaml");
		const events = parseEvents(second.stdout);
		expectValidTrace(events);
		expect(second.code).toBe(1);
		expect(second.stderr).toBe("warden: budget exhausted: tool_calls would exceed the session limit of 3 (used 3, requested 1)\n");
		expect(existsSync(join(fx.workspace, "c.txt"))).toBe(true);
		expect(existsSync(join(fx.workspace, "d.txt"))).toBe(false);
		expect(finalBudget(events)).toMatchObject({ tool_calls: { used: 3, limit: 3 }, model_calls: { used: 4 }, bytes_written: { used: 18 } });

		const audit = await runCli(["audit", "list", "--json", "--state-dir", fx.stateDir]);
		const resumed = audit.stdout
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l) as { kind: string; data: Record<string, unknown> })
			.find((r) => r.kind === "session.resumed");
		expect(resumed?.data.budget_carried).toEqual({ used: { tool_calls: 2, model_calls: 2, bytes_written: 12 }, cut_off_turns: [] });
	});

	it("a run killed mid-turn counts what it held as spent: the dispatched write and its call", async () => {
		const fx = makeFixture();
		const first = await runPlan(fx, [{ tool_calls: [write("a.txt")] }, { tool_calls: [write("b.txt")] }, { text: "never" }], ["--budget", "tool_calls=2"], {
			env: { WARDEN_CRASH_AT: "operation.performed" },
		});
		expect(first.code).not.toBe(0);
		const session = first.events[0]!.session;
		// The first write was performed and the process died before its outcome was recorded.
		expect(existsSync(join(fx.workspace, "a.txt"))).toBe(true);

		const second = await resume(fx, session, [{ tool_calls: [write("c.txt")] }, { tool_calls: [write("d.txt")] }, { text: "done" }], ["--budget", "tool_calls=2"], "second.yaml");
		const events = parseEvents(second.stdout);
		expectValidTrace(events);
		expect(second.code).toBe(1);
		// One call of the cut-off turn plus c.txt: the limit of 2 is reached, d.txt is refused.
		expect(existsSync(join(fx.workspace, "c.txt"))).toBe(true);
		expect(existsSync(join(fx.workspace, "d.txt"))).toBe(false);
		expect(finalBudget(events)).toMatchObject({ tool_calls: { used: 2, limit: 2 }, model_calls: { used: 3 } });
		const audit = await runCli(["audit", "list", "--json", "--state-dir", fx.stateDir]);
		const records = audit.stdout.trim().split("\n").map((l) => JSON.parse(l) as { kind: string; data: Record<string, unknown> });
		// Recovery found the file holding the intended bytes and settled the write committed; it is charged.
		expect(records.find((r) => r.kind === "session.resumed")?.data.budget_carried).toEqual({ used: { tool_calls: 1, model_calls: 1, bytes_written: 6 }, cut_off_turns: [1] });
	});
});
