import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectValidTrace, makeFixture, runCli, runPlan } from "./cli-harness.js";

describe("warden undo (end to end, real CLI)", () => {
	it("restores a session's edit as a governed session, explains it, and then refuses a file changed since", async () => {
		const fx = makeFixture({ "notes.md": "ship on Fridy\n" });
		const run = await runPlan(fx, [{ tool_calls: [{ name: "edit_file", arguments: { path: "notes.md", old: "Fridy", new: "Friday" } }] }, { text: "done" }]);
		expect(run.code, run.stderr).toBe(0);
		expectValidTrace(run.events);
		const session = run.events[0]!.session;
		const notes = join(fx.workspace, "notes.md");
		expect(readFileSync(notes, "utf8")).toBe("ship on Friday\n");

		const dry = await runCli(["undo", session, "--dry-run", "--state-dir", fx.stateDir]);
		expect(dry.code, dry.stderr).toBe(0);
		expect(dry.stdout).toContain("would restore notes.md");
		expect(readFileSync(notes, "utf8")).toBe("ship on Friday\n");

		const undo = await runCli(["undo", session, "--json", "--state-dir", fx.stateDir]);
		expect(undo.code, undo.stderr).toBe(0);
		const result = JSON.parse(undo.stdout);
		expect(result).toMatchObject({ target: { session }, dry_run: false, refused: [], restored: [{ path: "notes.md", action: "written", call: "undo_1_1" }] });
		expect(readFileSync(notes, "utf8")).toBe("ship on Fridy\n");

		// The restore's own effect record: its decision and its diff.
		const explained = await runCli(["explain", `#${result.restored[0].effect_seq}`, "--session", result.session, "--state-dir", fx.stateDir]);
		expect(explained.code, explained.stderr).toBe(0);
		expect(explained.stdout).toContain(`call undo_1_1 undo · session ${result.session}`);
		expect(explained.stdout).toContain("decision allow by layer host-rule");
		expect(explained.stdout).toContain(`reason: warden undo of session ${session} requested by the host`);
		expect(explained.stdout).toContain("fs.write fs:notes.md");
		expect(explained.stdout).toContain("| -ship on Friday");
		expect(explained.stdout).toContain("| +ship on Fridy");
		// By its own id too: a call the host made has no model call, and nothing is missing for it.
		const byId = await runCli(["explain", "undo_1_1", "--session", result.session, "--state-dir", fx.stateDir]);
		expect(byId.code, byId.stderr).toBe(0);
		expect(byId.stdout).toContain("proposed by the host: warden undo (no model call)");
		expect(byId.stdout.trim().split("\n").at(-1)).toContain("evidence complete");

		writeFileSync(notes, "rewritten by hand\n");
		const refused = await runCli(["undo", "call_1_1_1", "--state-dir", fx.stateDir]);
		expect(refused.code).toBe(1);
		expect(refused.stdout).toMatch(/refused +notes\.md changed since call_1_1_1 wrote it \(now [0-9a-f]{12}, expected [0-9a-f]{12}\); not restored/);
		expect(readFileSync(notes, "utf8")).toBe("rewritten by hand\n");
	});

	it("exits 2 with one line for an unknown session or call", async () => {
		const fx = makeFixture({});
		const unknown = await runCli(["undo", "no-such-thing", "--state-dir", fx.stateDir]);
		expect(unknown.code).toBe(2);
		expect(unknown.stderr).toBe("warden: no session or call no-such-thing in the recorded evidence\n");
	});
});
