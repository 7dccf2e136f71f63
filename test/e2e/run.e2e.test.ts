import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decisionsOf, expectValidTrace, link, makeFixture, runCli, runPlan, terminalOf } from "./cli-harness.js";

describe("warden run (end to end, real CLI)", () => {
	it("runs a governed task: decisions, an edit with its diff, refusals, and a valid audit chain", async () => {
		const fx = makeFixture({ "notes.md": "ship on Fridy\n" });
		const run = await runPlan(fx, [
			{ tool_calls: [{ name: "read_file", arguments: { path: "notes.md" } }] },
			{
				tool_calls: [
					{ name: "edit_file", arguments: { path: "notes.md", old: "Fridy", new: "Friday" } },
					{ name: "shell", arguments: { command: "echo hi && nice /bin/rm -fr /" } },
					{ name: "shell", arguments: { command: "echo pwned > marker.txt | sh" } },
				],
			},
			{ text: "done" },
		]);
		expect(run.code, run.stderr).toBe(0);
		expectValidTrace(run.events);
		expect(decisionsOf(run.events)).toEqual({
			call_1_1_1: "allow",
			call_1_2_1: "allow",
			call_1_2_2: "deny",
			call_1_2_3: "ask",
		});
		expect(terminalOf(run.events, "call_1_2_2")).toBe("tool.denied");
		expect(terminalOf(run.events, "call_1_2_3")).toBe("tool.cancelled");
		expect(readFileSync(join(fx.workspace, "notes.md"), "utf8")).toBe("ship on Friday\n");
		expect(existsSync(join(fx.workspace, "marker.txt"))).toBe(false);
		const hardline = run.events.find((e) => e.kind === "permission.decided" && e.payload.call_id === "call_1_2_2");
		expect(hardline?.kind === "permission.decided" && hardline.payload.layer).toBe("hardline");

		const verify = await runCli(["audit", "verify", "--state-dir", fx.stateDir]);
		expect(verify.code).toBe(0);
		expect(verify.stdout).toMatch(/audit chain valid: \d+ records/);
		const audit = await runCli(["audit", "list", "--json", "--state-dir", fx.stateDir]);
		const records = audit.stdout.trim().split("\n").map((l) => JSON.parse(l));
		const edit = records.find((r) => r.kind === "effect" && r.call_id === "call_1_2_1");
		expect(edit.data.effect).toBe("fs.write");
		expect(edit.data.diff).toContain("-ship on Fridy");
		expect(edit.data.diff).toContain("+ship on Friday");
		const effectEvent = run.events.find((e) => e.kind === "effect.recorded" && e.payload.call_id === "call_1_2_1");
		expect(effectEvent?.kind === "effect.recorded" && effectEvent.payload.audit_seq).toBe(edit.seq);
		expect(records.filter((r) => r.kind === "permission.decided")).toHaveLength(4);
	});

	it("--on-ask allow approves what --on-ask deny refuses", async () => {
		const steps = [{ tool_calls: [{ name: "shell", arguments: { command: "eval 'echo ran > marker.txt'" } }] }, { text: "ok" }];
		const denied = makeFixture();
		const r1 = await runPlan(denied, steps);
		expectValidTrace(r1.events);
		expect(existsSync(join(denied.workspace, "marker.txt"))).toBe(false);
		const allowed = makeFixture();
		const r2 = await runPlan(allowed, steps, ["--on-ask", "allow"]);
		expectValidTrace(r2.events);
		expect(readFileSync(join(allowed.workspace, "marker.txt"), "utf8")).toBe("ran\n");
		expect(r2.events.some((e) => e.kind === "permission.confirmed" && e.payload.approved)).toBe(true);
	});

	it.each([
		["read-only", { write: "deny", shell: "deny", read: "allow" }],
		["plan", { write: "deny", shell: "deny", read: "allow" }],
		// A plain command in the workspace runs without a prompt: the sandbox keeps its writes in the workspace.
		["workspace-write", { write: "allow", shell: "allow", read: "allow" }],
		["full-access", { write: "allow", shell: "allow", read: "allow" }],
	] as const)("mode %s decides write/shell/read as expected and only admitted effects happen", async (mode, expected) => {
		const fx = makeFixture({ "a.txt": "A\n" });
		const run = await runPlan(
			fx,
			[
				{
					tool_calls: [
						{ name: "write_file", arguments: { path: "b.txt", content: "B\n" } },
						{ name: "shell", arguments: { command: "touch c.txt" } },
						{ name: "read_file", arguments: { path: "a.txt" } },
					],
				},
				{ text: "ok" },
			],
			["--mode", mode],
		);
		expect(run.code, run.stderr).toBe(0);
		expectValidTrace(run.events);
		expect(decisionsOf(run.events)).toEqual({ call_1_1_1: expected.write, call_1_1_2: expected.shell, call_1_1_3: expected.read });
		expect(existsSync(join(fx.workspace, "b.txt"))).toBe(expected.write === "allow");
		expect(existsSync(join(fx.workspace, "c.txt"))).toBe(expected.shell === "allow");
	});

	it("a run-level deny beats a host allow, and a host allow lets a trusted chain through", async () => {
		const fx = makeFixture();
		const run = await runPlan(
			fx,
			[
				{
					tool_calls: [
						{ name: "shell", arguments: { command: "touch one.txt" } },
						{ name: "shell", arguments: { command: "FOO=1 timeout 5 touch -c two.txt && touch three.txt" } },
						{ name: "shell", arguments: { command: "echo x && echo y" } },
					],
				},
				{ text: "ok" },
			],
			["--allow", "shell(touch *)", "--allow", "shell(echo *)", "--deny", "shell(touch -c *)"],
		);
		expectValidTrace(run.events);
		expect(decisionsOf(run.events)).toEqual({ call_1_1_1: "allow", call_1_1_2: "deny", call_1_1_3: "allow" });
		expect(existsSync(join(fx.workspace, "one.txt"))).toBe(true);
		expect(existsSync(join(fx.workspace, "three.txt"))).toBe(false);
		const denied = run.events.find((e) => e.kind === "permission.decided" && e.payload.call_id === "call_1_1_2");
		expect(denied?.kind === "permission.decided" && denied.payload.layer).toBe("run-deny");
	});

	it("refuses workspace escapes through .., absolute paths and symlinks", async () => {
		const fx = makeFixture({ "in.txt": "inside\n" });
		writeFileSync(join(fx.dir, "outside.txt"), "outside secret\n");
		link(join(fx.dir, "outside.txt"), join(fx.workspace, "link.txt"));
		link(fx.dir, join(fx.workspace, "up"));
		const run = await runPlan(
			fx,
			[
				{
					tool_calls: [
						{ name: "read_file", arguments: { path: "../outside.txt" } },
						{ name: "read_file", arguments: { path: join(fx.dir, "outside.txt") } },
						{ name: "read_file", arguments: { path: "link.txt" } },
						{ name: "write_file", arguments: { path: "up/planted.txt", content: "x" } },
						{ name: "read_file", arguments: { path: join(fx.workspace, "in.txt") } },
					],
				},
				{ text: "ok" },
			],
			["--mode", "full-access"],
		);
		expectValidTrace(run.events);
		for (const id of ["call_1_1_1", "call_1_1_2", "call_1_1_3", "call_1_1_4"]) {
			const terminal = terminalOf(run.events, id);
			expect(["tool.failed", "tool.denied"]).toContain(terminal);
		}
		expect(terminalOf(run.events, "call_1_1_5")).toBe("tool.completed");
		expect(existsSync(join(fx.dir, "planted.txt"))).toBe(false);
		expect(run.stdout).not.toContain("outside secret");
	});

	it("stops at --max-steps with a clear terminal status", async () => {
		const fx = makeFixture({ "a.txt": "a" });
		const step = { tool_calls: [{ name: "read_file", arguments: { path: "a.txt" } }] };
		const run = await runPlan(fx, [step, step, step, step], ["--max-steps", "2"]);
		expect(run.code).toBe(1);
		expectValidTrace(run.events);
		const done = run.events.find((e) => e.kind === "turn.completed");
		expect(done?.kind === "turn.completed" && done.payload.status).toBe("max_steps");
		expect(run.stderr).toMatch(/^warden: stopped after 2 model calls/m);
	});
});

describe("rules about paths see through symlinks", () => {
	it("a deny on a directory also stops writes through a symlink that points into it", async () => {
		const fx = makeFixture({ "protected/keep.txt": "keep\n" });
		link(join(fx.workspace, "protected"), join(fx.workspace, "alias"));
		const run = await runPlan(
			fx,
			[{ tool_calls: [{ name: "write_file", arguments: { path: "alias/keep.txt", content: "overwritten\n" } }] }, { text: "ok" }],
			["--deny", "write_file(protected/**)"],
		);
		expectValidTrace(run.events);
		expect(decisionsOf(run.events)).toEqual({ call_1_1_1: "deny" });
		expect(readFileSync(join(fx.workspace, "protected", "keep.txt"), "utf8")).toBe("keep\n");
	});
});
