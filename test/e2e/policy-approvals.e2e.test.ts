import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/kernel/evidence/store-rows.js";
import { expectValidTrace, makeFixture, runCli, runPlan } from "./cli-harness.js";

describe("warden policy list|revoke (end to end, real CLI)", () => {
	it("lists a persisted answer with its id and source, it admits the identical call, and revoking it stops that", async () => {
		const fx = makeFixture();
		// An "always allow" answered through the embedding API, as a host with a prompt would record it.
		const store = openSqliteStore(fx.stateDir);
		await store.addApprovedRule({
			tool: "shell",
			pattern: "touch made.txt",
			outcome: "allow",
			workspace: fx.workspace,
			created_at: "2025-03-01T10:00:00.000Z",
			created_by: "alice",
			session: "s0",
		});
		await store.close();

		const listed = await runCli(["policy", "list", "--state-dir", fx.stateDir, "--workspace", fx.workspace]);
		expect(listed.code, listed.stderr).toBe(0);
		expect(listed.stdout).toBe(`#1  allow  shell(touch made.txt)  workspace ${fx.workspace}  by alice  2025-03-01T10:00:00.000Z\n`);
		const json = await runCli(["policy", "list", "--state-dir", fx.stateDir, "--json"]);
		expect(JSON.parse(json.stdout)).toMatchObject({ id: 1, rule: "shell(touch made.txt)", source: "approved rule #1", outcome: "allow" });

		// In the workspace-write sandbox a plain touch runs unasked: a host ask rule stands for the ask.
		const TOUCH_ASKS = ["--ask", "shell(touch *)"];
		// --on-ask deny: only the persisted rule can admit it, through an env prefix too.
		const allowed = await runPlan(fx, [{ tool_calls: [{ name: "shell", arguments: { command: "FOO=1 touch made.txt" } }] }, { text: "done" }], TOUCH_ASKS);
		expect(allowed.code, allowed.stderr).toBe(0);
		expectValidTrace(allowed.events);
		expect(allowed.events.find((e) => e.kind === "permission.decided")?.payload).toMatchObject({ decision: "allow", rule: "shell(touch made.txt)" });
		expect(existsSync(join(fx.workspace, "made.txt"))).toBe(true);

		const revoked = await runCli(["policy", "revoke", "1", "--state-dir", fx.stateDir]);
		expect(revoked.code, revoked.stderr).toBe(0);
		expect(revoked.stdout).toBe(`revoked approved rule #1: allow shell(touch made.txt) in ${fx.workspace}\n`);
		expect((await runCli(["policy", "list", "--state-dir", fx.stateDir])).stdout).toBe("no approved rules\n");
		const all = await runCli(["policy", "list", "--state-dir", fx.stateDir, "--all"]);
		expect(all.stdout).toMatch(/^#1 {2}allow {2}shell\(touch made\.txt\) .* REVOKED \S+ by cli\n$/);

		const again = await runCli(["policy", "revoke", "1", "--state-dir", fx.stateDir]);
		expect(again.code).toBe(2);
		expect(again.stderr).toMatch(/^warden: approved rule #1 was already revoked at \S+\n$/);
		const bad = await runCli(["policy", "revoke", "x", "--state-dir", fx.stateDir]);
		expect(bad.stderr).toBe('warden: <id> must be a rule id such as 3, got "x"\n');

		const refused = await runPlan(fx, [{ tool_calls: [{ name: "shell", arguments: { command: "touch made2.txt" } }] }, { text: "done" }], TOUCH_ASKS);
		expectValidTrace(refused.events);
		const after = await runPlan(fx, [{ tool_calls: [{ name: "shell", arguments: { command: "touch made.txt" } }] }, { text: "done" }], TOUCH_ASKS);
		expectValidTrace(after.events);
		expect(after.events.find((e) => e.kind === "permission.decided")?.payload).toMatchObject({ decision: "ask" });
		expect(after.events.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ approved: false });

		const verify = await runCli(["audit", "verify", "--state-dir", fx.stateDir]);
		expect(verify.code, verify.stdout).toBe(0);
	});
});
