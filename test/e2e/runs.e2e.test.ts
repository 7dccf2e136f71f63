/** `warden runs …` and `warden run --resume` through the real CLI, a crash included. */
import { describe, expect, it } from "vitest";
import { makeFixture, runCli, writePlan } from "./cli-harness.js";

describe("warden runs", () => {
	it("starts a run once, follows up, shows it; the same start again prints the same result and opens no second session", async () => {
		const fx = makeFixture({ "a.txt": "alpha\n" });
		const plan = writePlan(fx, [{ text: "all done" }]);
		const common = ["--model", `scripted:${plan}`, "--state-dir", fx.stateDir];
		const start = await runCli(["runs", "start", "--id", "r1", "--workspace", fx.workspace, ...common, "do the task"]);
		expect(start.stderr).not.toMatch(/internal error/);
		expect(start.code).toBe(0);
		expect(start.stdout).toMatch(/^run r1: completed \(start r1, session [0-9a-f-]{36}, turn 1\)\nall done\n$/);

		const again = await runCli(["runs", "start", "--id", "r1", "--workspace", fx.workspace, ...common, "do the task"]);
		expect(again).toMatchObject({ code: 0, stdout: start.stdout });
		expect(again.stderr).toContain("command r1 of run r1 was already done; its stored result follows");
		const sessions = await runCli(["sessions", "list", "--state-dir", fx.stateDir, "--json"]);
		expect(sessions.code).toBe(0);
		expect(sessions.stdout.trim().split("\n")).toHaveLength(1);

		const follow = await runCli(["runs", "follow-up", "r1", "--command-id", "f1", ...common, "one more thing"]);
		expect(follow.code).toBe(0);
		expect(follow.stdout).toMatch(/^run r1: completed \(follow-up f1, session [0-9a-f-]{36}, turn 2\)\nall done\n$/);

		const show = await runCli(["runs", "show", "r1", "--state-dir", fx.stateDir, "--json"]);
		expect(show.code).toBe(0);
		const view = JSON.parse(show.stdout) as { run: { state: string; session: string }; commands: { command_id: string; kind: string; state: string }[] };
		expect(view.run.state).toBe("completed");
		expect(view.commands.map((c) => [c.command_id, c.kind, c.state])).toEqual([
			["r1", "start", "done"],
			["f1", "follow-up", "done"],
		]);
		const list = await runCli(["runs", "list", "--state-dir", fx.stateDir, "--json"]);
		expect((JSON.parse(list.stdout) as { id: string }[]).map((r) => r.id)).toEqual(["r1"]);
	}, 60_000);

	it("after a crash mid-effect: show names the unknown shell effect, continue is refused until resolve", async () => {
		const fx = makeFixture();
		const plan = writePlan(fx, [{ tool_calls: [{ name: "shell", arguments: { command: "echo hi" } }] }, { text: "ran it" }]);
		const common = ["--model", `scripted:${plan}`, "--state-dir", fx.stateDir];
		const crashed = await runCli(["runs", "start", "--id", "r2", "--workspace", fx.workspace, "--allow", "shell(echo hi)", ...common, "run echo"], {
			env: { WARDEN_CRASH_AT: "operation.dispatched" },
		});
		expect(crashed.code).not.toBe(0);

		const show = await runCli(["runs", "show", "r2", "--state-dir", fx.stateDir]);
		expect(show.code).toBe(0);
		expect(show.stdout).toMatch(/^run r2: needs_attention /);
		expect(show.stdout).toMatch(/unknown effect: shell\.exec shell:echo hi \(operation op_[^,]+, call call_1_1_1\): .+/);
		expect(show.stdout).toContain("interrupted: command r2 (start) was accepted but never finished");

		const retry = await runCli(["runs", "start", "--id", "r2", "--workspace", fx.workspace, ...common, "run echo"]);
		expect(retry.code).toBe(1);
		expect(retry.stderr).toContain("command r2 of run r2 was accepted but never finished (the process stopped while it ran); it is not run again");

		const refused = await runCli(["runs", "continue", "r2", "--command-id", "c1", ...common]);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toMatch(/^warden: run r2 needs attention \(unknown effect shell\.exec shell:echo hi/);

		const resolved = await runCli(["runs", "resolve", "r2", "--command-id", "ack1", "--state-dir", fx.stateDir]);
		expect(resolved.stdout).toMatch(/^run r2: failed \(resolve ack1, session /);
		const audit = await runCli(["audit", "list", "--state-dir", fx.stateDir, "--json"]);
		const resolvedRecord = audit.stdout.trim().split("\n").map((l) => JSON.parse(l) as { kind: string; data: Record<string, unknown> }).find((r) => r.kind === "run.resolved");
		expect(resolvedRecord?.data).toMatchObject({ run: "r2", command_id: "ack1", commands: ["r2"], operations: [expect.stringMatching(/^op_/)] });

		const continued = await runCli(["runs", "continue", "r2", "--command-id", "c1", "--allow", "shell(echo hi)", ...common]);
		expect(continued.stderr).not.toMatch(/internal error/);
		expect(continued.stdout).toMatch(/^run r2: completed \(continue c1, session [0-9a-f-]{36}, turn 2\)/);
	}, 60_000);

	it("resumes a session with `warden run --resume`", async () => {
		const fx = makeFixture();
		const plan = writePlan(fx, [{ text: "first answer" }]);
		const first = await runCli(["run", "hello", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--json"]);
		expect(first.code).toBe(0);
		const session = (JSON.parse(first.stdout.split("\n")[0]!) as { session: string }).session;
		const resumed = await runCli(["run", "--resume", session, "and again", "--state-dir", fx.stateDir, "--json"]);
		expect(resumed.stderr).toBe("");
		expect(resumed.code).toBe(0);
		const events = resumed.stdout.trim().split("\n").map((l) => JSON.parse(l) as { kind: string; turn: number; session: string; payload: { resumed?: boolean } });
		expect(events[0]).toMatchObject({ kind: "session.started", session, payload: { resumed: true } });
		expect(events.find((e) => e.kind === "turn.started")?.turn).toBe(2);
		const unknown = await runCli(["run", "--resume", "nope", "x", "--state-dir", fx.stateDir]);
		expect(unknown).toMatchObject({ code: 2, stderr: "warden: unknown session nope\n" });
	}, 60_000);
});
