import { describe, expect, it } from "vitest";
import { expectValidTrace, makeFixture, runCli, runPlan } from "./cli-harness.js";

describe("warden explain (end to end, real CLI)", () => {
	it("explains an edit by call id and by its effect's audit seq: model call, decision, diff, complete", async () => {
		const fx = makeFixture({ "notes.md": "ship on Fridy\n" });
		const run = await runPlan(fx, [
			{ tool_calls: [{ name: "edit_file", arguments: { path: "notes.md", old: "Fridy", new: "Friday" } }] },
			{ text: "done" },
		]);
		expect(run.code, run.stderr).toBe(0);
		expectValidTrace(run.events);
		const session = run.events[0]!.session;

		const byCall = await runCli(["explain", "call_1_1_1", "--state-dir", fx.stateDir]);
		expect(byCall.code, byCall.stderr).toBe(0);
		const text = byCall.stdout;
		expect(text).toContain(`call call_1_1_1 edit_file · session ${session} · turn 1 step 1`);
		expect(text).toMatch(/proposed by model call scripted:\S+ \(turn 1 step 1, completed, 1 tool call\(s\)\) \[event #\d+, audit #\d+\]/);
		expect(text).toMatch(/decision allow by layer \S+/);
		expect(text).toContain("fs.write fs:notes.md");
		expect(text).toContain("| -ship on Fridy");
		expect(text).toContain("| +ship on Friday");
		expect(text).toMatch(/outcome completed/);
		expect(text.trimEnd().split("\n").at(-1)).toBe("evidence complete");

		const json = await runCli(["explain", "call_1_1_1", "--json", "--state-dir", fx.stateDir]);
		const tree = JSON.parse(json.stdout);
		expect(tree.complete).toBe(true);
		expect(tree.missing).toEqual([]);
		expect(tree.decision.layer).toBeTypeOf("string");
		expect(tree.decision.audit_seq).toBeTypeOf("number");
		const effect = run.events.find((e) => e.kind === "effect.recorded");
		const seq = effect?.kind === "effect.recorded" ? effect.payload.audit_seq : -1;
		expect(tree.effects[0]).toMatchObject({ kind: "fs.write", resource: "fs:notes.md", audit_seq: seq });

		for (const id of [String(seq), `#${seq}`]) {
			const byEffect = await runCli(["explain", id, "--json", "--state-dir", fx.stateDir]);
			expect(byEffect.code, byEffect.stderr).toBe(0);
			const resolved = JSON.parse(byEffect.stdout);
			expect(resolved.call).toBe("call_1_1_1");
			expect(resolved.session).toBe(session);
			expect(resolved.resolved_from).toEqual({ audit_seq: seq, kind: "effect" });
		}
	});

	it("exits 2 with one line for an unknown id and for a call id held by several sessions", async () => {
		const fx = makeFixture({ "a.md": "x\n" });
		const steps = [{ tool_calls: [{ name: "read_file", arguments: { path: "a.md" } }] }, { text: "ok" }];
		await runPlan(fx, steps);
		await runPlan(fx, steps);
		const unknown = await runCli(["explain", "call_7_7_7", "--state-dir", fx.stateDir]);
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toBe("warden: no call call_7_7_7 in the recorded evidence\n");
		const ambiguous = await runCli(["explain", "call_1_1_1", "--state-dir", fx.stateDir]);
		expect(ambiguous.code).toBe(2);
		expect(ambiguous.stderr).toMatch(/^warden: call call_1_1_1 is in 2 sessions; pass --session with one of: \S+, \S+\n$/);
		const sessionId = ambiguous.stderr.match(/one of: (\S+),/)![1]!;
		const chosen = await runCli(["explain", "call_1_1_1", "--session", sessionId, "--state-dir", fx.stateDir]);
		expect(chosen.code, chosen.stderr).toBe(0);
		expect(chosen.stdout).toContain(`session ${sessionId}`);
	});
});
