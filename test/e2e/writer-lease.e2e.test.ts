import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CliResult, type Fixture, makeFixture, type PlanStep, runCli, writePlan } from "./cli-harness.js";

const LEASE = "writer.lease";

/** A run whose one shell call blocks for `seconds`, so a second command can meet it mid-way. */
function startRun(fx: Fixture, steps: PlanStep[], name: string): Promise<CliResult> {
	const plan = writePlan(fx, steps, name);
	return runCli([
		"run",
		"e2e task",
		"--model",
		`scripted:${plan}`,
		"--workspace",
		fx.workspace,
		"--state-dir",
		fx.stateDir,
		"--mode",
		"full-access",
		"--on-ask",
		"allow",
		"--json",
	]);
}

const blocking = (seconds: number): PlanStep[] => [{ tool_calls: [{ name: "shell", arguments: { command: `sleep ${seconds}` } }] }, { text: "done" }];
const quick: PlanStep[] = [{ text: "done" }];

/** The lease file's holder, once the first run has opened its store. */
async function leaseHolder(fx: Fixture): Promise<{ pid: number; started_at: string }> {
	const path = join(fx.stateDir, LEASE);
	for (let i = 0; i < 200; i++) {
		if (existsSync(path)) return JSON.parse(readFileSync(path, "utf8")) as { pid: number; started_at: string };
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
	throw new Error("the first run never took the writer lease");
}

describe("the state dir's single-writer lease (end to end, real CLI)", () => {
	it("refuses a second concurrent run with one line, lets readers in, and frees the dir when the first finishes", async () => {
		const fx = makeFixture();
		const first = startRun(fx, blocking(3), "first.yaml");
		const holder = await leaseHolder(fx);

		const second = await startRun(fx, quick, "second.yaml");
		expect(second.code).not.toBe(0);
		expect(second.stdout).toBe("");
		expect(second.stderr.trim().split("\n")).toHaveLength(1);
		expect(second.stderr).toContain(
			`state dir ${fx.stateDir} is in use by another Warden process (pid ${holder.pid} since ${holder.started_at}); wait for it to finish or use another --state-dir`,
		);

		// Readers need no lease: they work while the run writes.
		const verify = await runCli(["audit", "verify", "--state-dir", fx.stateDir]);
		expect(verify.code, verify.stderr).toBe(0);
		expect(verify.stdout).toMatch(/^audit chain valid: \d+ records\n$/);
		const sessions = await runCli(["sessions", "list", "--state-dir", fx.stateDir, "--json"]);
		expect(sessions.code, sessions.stderr).toBe(0);
		expect(sessions.stdout.trim().split("\n")).toHaveLength(1);
		// The refused run left the holder's lease in place.
		expect(JSON.parse(readFileSync(join(fx.stateDir, LEASE), "utf8")).pid).toBe(holder.pid);

		const done = await first;
		expect(done.code, done.stderr).toBe(0);
		expect(existsSync(join(fx.stateDir, LEASE))).toBe(false);

		const third = await startRun(fx, quick, "third.yaml");
		expect(third.code, third.stderr).toBe(0);
		const after = await runCli(["audit", "verify", "--state-dir", fx.stateDir]);
		expect(after.code, after.stderr).toBe(0);
	}, 30_000);

	it("after a run is SIGKILLed, the next run takes over its stale lease and the audit records the recovery", async () => {
		const fx = makeFixture();
		const first = startRun(fx, blocking(5), "first.yaml");
		const holder = await leaseHolder(fx);
		// Let the session start writing evidence before the crash.
		await new Promise((resolve) => setTimeout(resolve, 500));
		process.kill(holder.pid, "SIGKILL");
		const killed = await first;
		expect(killed.code).not.toBe(0);
		expect(existsSync(join(fx.stateDir, LEASE))).toBe(true);

		const next = await startRun(fx, quick, "next.yaml");
		expect(next.code, next.stderr).toBe(0);
		expect(existsSync(join(fx.stateDir, LEASE))).toBe(false);

		const list = await runCli(["audit", "list", "--state-dir", fx.stateDir, "--json"]);
		expect(list.code, list.stderr).toBe(0);
		const records = list.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { kind: string; session: string; data: Record<string, unknown> });
		const recovered = records.filter((r) => r.kind === "store.lease_recovered");
		expect(recovered).toHaveLength(1);
		expect(recovered[0]).toMatchObject({ session: "host", data: { previous_pid: holder.pid, previous_started_at: holder.started_at } });
		// The recovery comes before the next run's session starts.
		const recoveredAt = records.indexOf(recovered[0]!);
		expect(records.slice(recoveredAt + 1).some((r) => r.kind === "session.started")).toBe(true);
		const verify = await runCli(["audit", "verify", "--state-dir", fx.stateDir]);
		expect(verify.code, verify.stderr).toBe(0);
	}, 30_000);
});
