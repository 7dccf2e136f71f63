import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectValidTrace, makeFixture, runCli, runPlan, terminalOf, writePlan } from "./cli-harness.js";

const write = (path: string) => ({ name: "write_file", arguments: { path, content: `${path}\n` } });

describe("warden run --budget (end to end, real CLI)", () => {
	it("stops at the limit: the call past it is cancelled, the turn ends budget_exhausted, exit 1 and one line on stderr", async () => {
		const fx = makeFixture();
		const run = await runPlan(fx, [{ tool_calls: [write("a.txt")] }, { tool_calls: [write("b.txt"), write("c.txt")] }, { text: "done" }], [
			"--budget",
			"tool_calls=2",
			"--budget",
			"shell_ms=60000",
		]);
		expect(run.code).toBe(1);
		expect(run.stderr).toBe("warden: budget exhausted: tool_calls would exceed the session limit of 2 (used 2, requested 1)\n");
		expectValidTrace(run.events);
		expect(existsSync(join(fx.workspace, "b.txt"))).toBe(true);
		expect(existsSync(join(fx.workspace, "c.txt"))).toBe(false);
		expect(terminalOf(run.events, "call_1_2_2")).toBe("tool.cancelled");
		expect(run.events.filter((e) => e.kind === "budget.exhausted").map((e) => e.payload)).toEqual([
			{ counter: "tool_calls", scope: "session", limit: 2, used: 2, requested: 1, call_id: "call_1_2_2" },
		]);
		const done = run.events.find((e) => e.kind === "turn.completed");
		expect(done?.kind === "turn.completed" && done.payload).toMatchObject({
			status: "budget_exhausted",
			budget: { tool_calls: { used: 2, limit: 2 }, shell_ms: { used: 0, limit: 60000 }, model_calls: { used: 2 } },
		});

		const verify = await runCli(["audit", "verify", "--state-dir", fx.stateDir]);
		expect(verify.code).toBe(0);
		const audit = await runCli(["audit", "list", "--json", "--state-dir", fx.stateDir]);
		const records = audit.stdout.trim().split("\n").map((l) => JSON.parse(l) as { kind: string; call_id?: string; data: Record<string, unknown> });
		expect(records.find((r) => r.kind === "budget.exhausted")).toMatchObject({ call_id: "call_1_2_2", data: { counter: "tool_calls", limit: 2 } });
		expect(records.find((r) => r.kind === "session.started")?.data.budget).toEqual({ session: { tool_calls: 2, shell_ms: 60000 } });
	});

	it("refuses a shell command whose timeout does not fit before spawning it, and says so in the human output", async () => {
		const fx = makeFixture();
		const plan = writePlan(fx, [{ tool_calls: [{ name: "shell", arguments: { command: "touch marker.txt" } }] }, { text: "done" }]);
		const run = await runCli([
			"run",
			"touch a marker",
			"--model",
			`scripted:${plan}`,
			"--workspace",
			fx.workspace,
			"--state-dir",
			fx.stateDir,
			"--allow",
			"shell(touch *)",
			"--budget",
			"shell_ms=1000",
		]);
		expect(run.code).toBe(1);
		expect(run.stderr).toBe("warden: budget exhausted: shell_ms would exceed the session limit of 1000 (used 0, requested 30000)\n");
		expect(run.stdout).toContain("budget exhausted [call_1_1_1]: shell_ms 0+30000 over the session limit of 1000");
		expect(run.stdout).toContain("turn 1 budget_exhausted after 1 model call");
		expect(existsSync(join(fx.workspace, "marker.txt"))).toBe(false);
	});

	it("rejects a malformed --budget with one line and exit 2, before anything runs", async () => {
		const fx = makeFixture();
		const cases: [string[], string][] = [
			[["--budget", "wall_ms=5"], 'warden: --budget: unknown counter "wall_ms"; use one of tool_calls, model_calls, prompt_tokens, completion_tokens, bytes_read, bytes_written, shell_ms\n'],
			[["--budget", "tool_calls=many"], 'warden: --budget tool_calls: the limit must be a non-negative integer, got "many"\n'],
			[["--budget", "tool_calls=-1"], 'warden: --budget tool_calls: the limit must be a non-negative integer, got "-1"\n'],
			[["--budget", "tool_calls"], 'warden: --budget must be <counter>=<limit>, e.g. tool_calls=20, got "tool_calls"\n'],
			[["--budget", "tool_calls=1", "--budget", "tool_calls=2"], "warden: --budget tool_calls is given twice\n"],
		];
		for (const [flags, stderr] of cases) {
			const run = await runPlan(fx, [{ tool_calls: [write("a.txt")] }, { text: "done" }], flags);
			expect(run.code, flags.join(" ")).toBe(2);
			expect(run.stderr).toBe(stderr);
			expect(run.stdout).toBe("");
		}
		expect(existsSync(join(fx.workspace, "a.txt"))).toBe(false);
	});
});
