import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Fixture, makeFixture, runCli, runPlan } from "./cli-harness.js";

/** A run that edits a file and runs a shell command (asked, answered yes), then says done. */
async function recordSession(): Promise<{ fx: Fixture; session: string; file: string }> {
	const fx = makeFixture({ "notes.md": "ship on Fridy\n" });
	const run = await runPlan(
		fx,
		[
			{ tool_calls: [{ name: "edit_file", arguments: { path: "notes.md", old: "Fridy", new: "Friday" } }] },
			{ tool_calls: [{ name: "shell", arguments: { command: "grep -c Friday notes.md > count.txt" } }] },
			{ text: "done" },
		],
		["--on-ask", "allow"],
	);
	expect(run.code, run.stderr).toBe(0);
	const session = run.events[0]!.session;
	const file = join(fx.dir, "session.replay.jsonl");
	const exported = await runCli(["replay", "export", session, file, "--state-dir", fx.stateDir]);
	expect(exported.code, exported.stderr).toBe(0);
	expect(exported.stdout).toMatch(new RegExp(`^replay: session ${session} → ${file} \\(\\d+ lines\\)\\n$`));
	return { fx, session, file };
}

describe("warden replay (end to end, real CLI)", () => {
	it("exports a session and replays it to a full match; the recorded workspace is not touched", async () => {
		const { fx, session, file } = await recordSession();
		const lines = readFileSync(file, "utf8").trimEnd().split("\n");
		expect(JSON.parse(lines[0]!)).toMatchObject({ replay_schema: 1, kind: "warden.replay", session, redacted: true, workspace: fx.workspace });
		expect(JSON.parse(lines.at(-1)!)).toMatchObject({ type: "end", lines: lines.length - 1 });

		const replayed = await runCli(["replay", file]);
		expect(replayed.code, replayed.stderr).toBe(0);
		expect(replayed.stdout).toContain("turn 1: completed");
		expect(replayed.stdout).toContain(`match: 2 decision(s) and 2 effect(s) of session ${session} replayed the same`);
		expect(readFileSync(join(fx.workspace, "notes.md"), "utf8")).toBe("ship on Friday\n");

		const json = await runCli(["replay", file, "--json"]);
		expect(json.code, json.stderr).toBe(0);
		expect(JSON.parse(json.stdout)).toMatchObject({ match: true, session, mismatches: [], notes: [] });

		const again = await runCli(["replay", "export", session, file, "--state-dir", fx.stateDir]);
		expect(again.code).toBe(2);
		expect(again.stderr).toBe(`warden: ${file} already exists; a replay file is never overwritten\n`);
	});

	it("records the replayed session in --state-dir, or in $WARDEN_HOME, where the other commands find it", async () => {
		const { fx, session, file } = await recordSession();
		const replayState = join(fx.dir, "replay-state");
		const byFlag = await runCli(["replay", file, "--json", "--state-dir", replayState]);
		expect(byFlag.code, byFlag.stderr).toBe(0);
		const report = JSON.parse(byFlag.stdout) as { match: boolean; session: string; replay_session: string; state_dir: string };
		expect(report).toMatchObject({ match: true, session, state_dir: replayState });
		const shown = await runCli(["sessions", "show", report.replay_session, "--state-dir", replayState]);
		expect(shown.code, shown.stderr).toBe(0);
		expect((await runCli(["audit", "verify", "--state-dir", replayState])).code).toBe(0);

		const homeState = join(fx.dir, "home-state");
		const byEnv = await runCli(["replay", file], { env: { WARDEN_HOME: homeState } });
		expect(byEnv.code, byEnv.stderr).toBe(0);
		const recorded = byEnv.stdout.match(/^recorded: session (\S+) in (.+)$/m);
		expect(recorded?.[2]).toBe(homeState);
		expect((await runCli(["sessions", "show", recorded![1]!], { env: { WARDEN_HOME: homeState } })).code).toBe(0);
	});

	it("detects a replay file whose tool argument was changed, naming the line, and runs nothing", async () => {
		const { fx, file } = await recordSession();
		const lines = readFileSync(file, "utf8").split("\n");
		const at = lines.findIndex((l) => l.includes("grep -c Friday"));
		expect(at).toBeGreaterThan(0);
		lines[at] = lines[at]!.replace("grep -c Friday notes.md > count.txt", "touch pwned.txt");
		const tampered = join(fx.dir, "tampered.jsonl");
		writeFileSync(tampered, lines.join("\n"));
		const result = await runCli(["replay", tampered]);
		expect(result.code).toBe(1);
		expect(result.stdout).toBe("");
		expect(result.stderr).toBe(
			`warden: replay file tampered: line ${at + 2} does not chain to line ${at + 1} (line ${at + 1} was edited, or lines were removed or reordered there)\n`,
		);
	});

	it("reports the mismatch when the edited file was changed before the replay", async () => {
		const { fx, file } = await recordSession();
		writeFileSync(join(fx.workspace, "notes.md"), "ship on Fridy, or Monday\n");
		const result = await runCli(["replay", file]);
		expect(result.code, result.stderr).toBe(1);
		expect(result.stdout).toContain("start: notes.md: neither as the session found it nor as it left it; used as found");
		expect(result.stdout).toMatch(/MISMATCH: \d+ difference\(s\)/);
		expect(result.stdout).toMatch(/- line \d+ call_1_1_1: effect differs in sha256_before, sha256_after/);
	});

	it("refuses an unknown schema version with one line", async () => {
		const fx = makeFixture();
		const file = join(fx.dir, "v9.jsonl");
		// A correctly chained file of a later version: the chain holds, the version is what is refused.
		const header = JSON.stringify({ replay_schema: 9, kind: "warden.replay", prev: "0".repeat(64) });
		const sha = (text: string) => createHash("sha256").update(text).digest("hex");
		const end = JSON.stringify({ type: "end", lines: 1, digest: sha(`${header}\n`), prev: sha(header) });
		writeFileSync(file, `${header}\n${end}\n`);
		const result = await runCli(["replay", file]);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain("warden: replay schema version 9 is not supported (this Warden reads version 1)\n");
		writeFileSync(file, `${header}\n`);
		expect((await runCli(["replay", file])).stderr).toContain("warden: replay file is truncated: no end line after line 1\n");
	});
});
