import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../src/kernel/evidence/event-types.js";
import { expectValidTrace, makeFixture, runCli, runPlan, writePlan } from "./cli-harness.js";

const write = (path: string) => ({ name: "write_file", arguments: { path, content: `${path}\n` } });
const agent = (args: Record<string, unknown>) => ({ tool_calls: [{ name: "agent", arguments: args }] });

async function storedEvents(stateDir: string, session: string): Promise<AnyWardenEvent[]> {
	const show = await runCli(["sessions", "show", session, "--json", "--state-dir", stateDir]);
	expect(show.code).toBe(0);
	return (JSON.parse(show.stdout) as { events: AnyWardenEvent[] }).events;
}

describe("warden run --json streams sub-agents' events (end to end, real CLI)", () => {
	it("prints a foreground and a background child's events with lineage, each session's in its committed order", async () => {
		const fx = makeFixture();
		const run = await runPlan(fx, [
			agent({ task: "write a", tools: ["write_file"], steps: [{ tool_calls: [write("a.txt")] }, { text: "a written" }] }),
			agent({ task: "write b", tools: ["write_file"], background: true, steps: [{ tool_calls: [write("b.txt")] }, { text: "b written" }] }),
			{ text: "done" },
		]);
		expect(run.code).toBe(0);
		expect(existsSync(join(fx.workspace, "a.txt")) && existsSync(join(fx.workspace, "b.txt"))).toBe(true);
		expectValidTrace(run.events);

		const top = run.events[0]!.session;
		const started = run.events.filter((e) => e.session === top && e.kind === "subagent.started");
		expect(started).toHaveLength(2);
		for (const s of started) {
			const { call_id, child_session } = s.payload as { call_id: string; child_session: string };
			const heard = run.events.filter((e) => e.session === child_session);
			expect(heard.map((e) => e.kind)).toContain("effect.recorded");
			expect(heard.every((e) => e.lineage?.parent_session === top && e.lineage.parent_call === call_id && e.lineage.depth === 1)).toBe(true);
			// What --json printed for the child is its stored stream, in order, plus lineage.
			expect(heard.map(({ lineage: _l, ...rest }) => rest)).toEqual(await storedEvents(fx.stateDir, child_session));
			// The child's turn runs after the parent recorded starting it, and ends before the parent's turn does.
			expect(run.events.indexOf(heard.find((e) => e.kind === "turn.started")!)).toBeGreaterThan(run.events.indexOf(s));
			expect(run.events.indexOf(heard.at(-1)!)).toBeLessThan(run.events.findIndex((e) => e.session === top && e.kind === "turn.completed"));
		}
		expect(run.events.filter((e) => e.session === top)).toEqual(await storedEvents(fx.stateDir, top));
	});

	it("the human output indents a child's lines under its parent", async () => {
		const fx = makeFixture();
		const plan = writePlan(fx, [agent({ task: "write a", tools: ["write_file"], steps: [{ tool_calls: [write("a.txt")] }, { text: "a written" }] }), { text: "done" }]);
		const run = await runCli(["run", "delegate", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir]);
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/^ {2}┆ {3}● write_file/m);
		expect(run.stdout).toMatch(/^turn 1 completed after 2 model calls/m);
	});
});
