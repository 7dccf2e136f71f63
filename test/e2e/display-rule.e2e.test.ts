/**
 * The display rule on the CLI's own output (real CLI): a command, an answer and a task that carry
 * terminal escapes, overwrites, bidi and invisible characters are printed by `warden run`,
 * `warden asks list`, `warden sessions show|list`, `warden audit list` and `warden explain` with
 * every such character spelled, never raw; the ask's command, decoded, is exactly what the decision
 * read. `--json` stays the exact data.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeVisibleText } from "../../src/kernel/display/visible-text.js";
import { HOSTILE_SERVER } from "../../src/providers/mcp/test-support/mcp-servers.js";
import { makeFixture, runCli, writePlan } from "./cli-harness.js";
import { HIDDEN_TOUCH, PAYLOAD, RAW_HIDDEN, SPELLED } from "./display-payload.js";
import { startWaitingRun } from "./waiting-run.js";

const ASK = ["--ask", "shell(echo *)", "--ask", "shell(touch *)"];

function steps() {
	return [{ text: `about to run\u001b]52;c;eA==\u0007 it`, tool_calls: [{ name: "shell", arguments: { command: PAYLOAD } }] }, { text: `done: ${PAYLOAD}` }];
}

function expectShown(text: string, what: string): void {
	const raw = RAW_HIDDEN.exec(text);
	expect(raw, `${what} printed a raw ${raw ? JSON.stringify(raw[0]) : ""}`).toBeNull();
	for (const piece of SPELLED) expect(text, what).toContain(piece);
}

describe("the display rule on the CLI's printed output (end to end, real CLI)", () => {
	it("asks list, sessions, audit list and explain spell every hidden character; the ask's command decodes to what the decision read", async () => {
		const fx = makeFixture();
		const run = await startWaitingRun(fx, `task ${PAYLOAD}`, writePlan(fx, steps()), ASK);

		const listed = await runCli(["asks", "list", "--state-dir", fx.stateDir]);
		expect(listed.code, listed.stderr).toBe(0);
		expectShown(listed.stdout, "asks list");
		const shownCommand = listed.stdout.split("\n").find((l) => l.startsWith("  command: "));
		expect(shownCommand, listed.stdout).toBeDefined();
		expect(decodeVisibleText((shownCommand as string).slice("  command: ".length))).toBe(PAYLOAD);
		// --json is the data itself: exact, parseable, the command as the decision read it.
		const json = await runCli(["asks", "list", "--json", "--state-dir", fx.stateDir]);
		expect((JSON.parse(json.stdout) as { arguments: { command: string } }[])[0]?.arguments.command).toBe(PAYLOAD);

		const answered = await runCli(["asks", "answer", run.ask, "deny", "--state-dir", fx.stateDir]);
		expect(answered.code, answered.stderr).toBe(0);
		const events = await run.done;
		// The waiting run's own notice names the call, not its unredacted resource, and nothing raw.
		expect(run.stderr()).toMatch(/warden: shell \(call call_\d+_\d+_\d+\) waits for an answer/);
		expect(RAW_HIDDEN.exec(run.stderr())).toBeNull();
		const decided = events.find((e) => e.kind === "permission.confirmed");
		expect(decided?.payload).toMatchObject({ approved: false });
		expect(existsSync(join(fx.workspace, "hidden-by-escape"))).toBe(false);
		const session = events[0]?.session as string;

		const show = await runCli(["sessions", "show", session, "--state-dir", fx.stateDir]);
		expect(show.code, show.stderr).toBe(0);
		expectShown(show.stdout, "sessions show");
		expect(show.stdout).toContain("task echo greeting\\x1b]0;owned-title\\x07");
		const list = await runCli(["sessions", "list", "--state-dir", fx.stateDir]);
		expect(RAW_HIDDEN.exec(list.stdout)).toBeNull();

		const audit = await runCli(["audit", "list", "--state-dir", fx.stateDir]);
		expect(audit.code, audit.stderr).toBe(0);
		expect(RAW_HIDDEN.exec(audit.stdout), "audit list").toBeNull();
		expect(audit.stdout).toContain("\\u{202e}txt.exe\\u{200b}");

		const proposed = events.find((e) => e.kind === "tool.proposed");
		if (proposed?.kind !== "tool.proposed") throw new Error("the run proposed no call");
		const call = proposed.payload.call_id;
		const explain = await runCli(["explain", call, "--session", session, "--state-dir", fx.stateDir]);
		expect(explain.code, explain.stderr).toBe(0);
		expect(RAW_HIDDEN.exec(explain.stdout), "explain").toBeNull();
		expect(explain.stdout).toContain("\\u{202e}txt.exe\\u{200b}");
		expect(explain.stdout).toContain("said: about to run\\x1b]52;c;eA==\\x07 it");
	}, 90_000);

	it("warden run's own lines spell the task, the proposed command and the answer; nothing hidden runs", async () => {
		const fx = makeFixture();
		const plan = writePlan(fx, steps());
		const run = await runCli(["run", `task ${PAYLOAD}`, "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, "--no-project-config", ...ASK, "--on-ask", "deny"]);
		expect(run.code, run.stderr).toBe(0);
		expectShown(run.stdout, "warden run");
		expect(run.stdout).toContain(`done: echo greeting\\x1b]0;owned-title\\x07`);
		expect(RAW_HIDDEN.exec(run.stderr), "warden run's stderr").toBeNull();
		expect(run.stdout).toContain(HIDDEN_TOUCH);
		expect(existsSync(join(fx.workspace, "hidden-by-escape"))).toBe(false);
	}, 60_000);

	it("memory list/show, skills list and runs start spell what a model, a note or a skill file wrote", async () => {
		const fx = makeFixture();
		mkdirSync(join(fx.workspace, ".agents", "skills", "deploy"), { recursive: true });
		writeFileSync(join(fx.workspace, ".agents", "skills", "deploy", "SKILL.md"), `---\nname: deploy\ndescription: "Deploy ${JSON.stringify(PAYLOAD).slice(1, -1)}"\n---\nSteps.\n`);
		const skills = await runCli(["skills", "list", "--workspace", fx.workspace]);
		expect(skills.code, skills.stderr).toBe(0);
		expectShown(skills.stdout, "skills list");

		const plan = writePlan(fx, [{ tool_calls: [{ name: "memory_write", arguments: { title: `note ${PAYLOAD}`, content: `remember ${PAYLOAD}` } }] }, { text: `noted ${PAYLOAD}` }]);
		const common = ["--model", `scripted:${plan}`, "--state-dir", fx.stateDir, "--no-project-config"];
		const start = await runCli(["runs", "start", "--id", "r-shown", "--workspace", fx.workspace, ...common, "remember it"]);
		expect(start.code, start.stderr).toBe(0);
		expectShown(start.stdout, "runs start");
		expect(RAW_HIDDEN.exec(start.stderr), "runs start's progress").toBeNull();

		const list = await runCli(["memory", "list", "--workspace", fx.workspace, "--state-dir", fx.stateDir]);
		expect(list.code, list.stderr).toBe(0);
		expectShown(list.stdout, "memory list");
		const id = list.stdout.split(" ")[0] as string;
		const show = await runCli(["memory", "show", id, "--state-dir", fx.stateDir]);
		expect(show.code, show.stderr).toBe(0);
		expectShown(show.stdout, "memory show");
		expect(show.stdout).toContain(`title       note echo greeting\\x1b]0;owned-title\\x07`);
	}, 60_000);

	it("mcp list and mcp show print a hostile server's definitions (hidden, tag and override characters) with nothing raw", async () => {
		const fx = makeFixture();
		const config = join(fx.dir, "user.yaml");
		writeFileSync(config, `mcpServers:\n  hostile:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(HOSTILE_SERVER)}]\n    env: { HOSTILE_PHASE: approve, HOSTILE_LOG: ${JSON.stringify(join(fx.dir, "log.jsonl"))} }\n`);
		const at = ["--config", config, "--workspace", fx.workspace, "--state-dir", fx.stateDir];
		const list = await runCli(["mcp", "list", ...at]);
		expect(list.code, list.stderr).toBe(0);
		expect(list.stdout).toContain("FLAGGED: hidden-characters");
		expect(RAW_HIDDEN.exec(list.stdout), "mcp list").toBeNull();
		const show = await runCli(["mcp", "show", "hostile", ...at]);
		expect(show.code, show.stderr).toBe(0);
		expect(show.stdout).toContain("FLAGGED hidden-characters");
		expect(RAW_HIDDEN.exec(show.stdout), "mcp show").toBeNull();
		expect(/[\u{e0000}-\u{e007f}]/u.exec(show.stdout), "mcp show printed a raw tag character").toBeNull();
	}, 60_000);
});
