/**
 * The interactive terminal, driven through a real pseudo-terminal on the scripted model, its
 * screen read back through a headless terminal emulator. Every wait is on screen content.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AnyWardenEvent } from "../../src/kernel/evidence/event-types.js";
import { expectValidTrace, type Fixture, makeFixture, type PlanStep, runCli, writePlan } from "./cli-harness.js";
import { PtyScreen } from "./pty-harness.js";

const open: PtyScreen[] = [];
afterEach(() => {
	for (const s of open.splice(0)) s.kill();
});

/** The idle prompt: a row holding only the prompt mark (the cursor block is trimmed). */
const READY = (screen: PtyScreen) => () => screen.visible().some((row) => row === "›");

function chat(fixture: Fixture, steps: PlanStep[], extra: string[] = [], opts: { cols?: number; env?: NodeJS.ProcessEnv } = {}): PtyScreen {
	const plan = writePlan(fixture, steps);
	const screen = new PtyScreen(["--model", `scripted:${plan}`, "--workspace", fixture.workspace, "--state-dir", fixture.stateDir, ...extra], opts);
	open.push(screen);
	return screen;
}

async function ready(screen: PtyScreen): Promise<void> {
	await screen.waitFor(READY(screen));
}

/** Leaves with Ctrl-D and returns what the chat printed last: the session id and the audit verdict. */
async function leave(screen: PtyScreen): Promise<{ code: number; session: string }> {
	screen.write("\u0004");
	const code = await screen.exited;
	// Joined, as a narrow terminal wraps the line.
	const m = /session ([0-9a-f-]{36}) · audit: \d+ records, hash chain valid/.exec(screen.text().replace(/\n/g, ""));
	if (!m) throw new Error(`no audit verdict at exit:\n${screen.text()}`);
	return { code, session: m[1] as string };
}

async function events(fixture: Fixture, session: string): Promise<AnyWardenEvent[]> {
	const shown = await runCli(["sessions", "show", session, "--json", "--state-dir", fixture.stateDir]);
	return (JSON.parse(shown.stdout) as { events: AnyWardenEvent[] }).events;
}

async function auditKinds(fixture: Fixture): Promise<string[]> {
	const listed = await runCli(["audit", "list", "--json", "--state-dir", fixture.stateDir]);
	return listed.stdout
		.split("\n")
		.filter((l) => l !== "")
		.map((l) => (JSON.parse(l) as { kind: string }).kind);
}

const WRITE: PlanStep[] = [{ text: "Changing a.txt.", tool_calls: [{ name: "write_file", arguments: { path: "a.txt", content: "new\n" } }] }, { text: "Done." }];
const ASK_WRITES = ["--ask", "write_file(a.txt)"];

describe("warden (the interactive terminal)", () => {
	it("asks before a write; y allows it once: the file changes and the lease is consumed", async () => {
		const fixture = makeFixture({ "a.txt": "old\n" });
		const screen = chat(fixture, WRITE, ASK_WRITES);
		await ready(screen);
		screen.write("change a.txt\r");
		const asked = await screen.waitFor("[y] allow once");
		expect(asked).toContain("Allow write_file on a.txt?");
		expect(asked).toContain("+new");
		expect(asked).toContain("-old");
		expect(asked).toContain("a persists allow write_file(a.txt)");
		expect(asked).toMatch(/asked by host-rule rule write_file\(a\.txt\)/);
		screen.write("y");
		await screen.waitFor("completed in");
		await screen.waitFor("Done.");
		await ready(screen);
		expect(readFileSync(`${fixture.workspace}/a.txt`, "utf8")).toBe("new\n");
		const { code, session } = await leave(screen);
		expect(code).toBe(0);
		const kinds = await auditKinds(fixture);
		expect(kinds).toContain("approval.granted");
		expect(kinds).toContain("approval.consumed");
		const recorded = await events(fixture, session);
		expect(recorded.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ approved: true, response: "allow_once" });
		expectValidTrace(recorded);
	});

	it("the first prompt is there before the screen has loaded: what is typed at it is sent once the screen is up", async () => {
		const fixture = makeFixture();
		const screen = chat(fixture, [{ text: "heard you" }]);
		// The first row "›" is the early prompt (src/surfaces/tui/early-prompt.ts), drawn before Ink and the runtime load.
		await ready(screen);
		screen.write("hello there\r");
		await screen.waitFor("heard you");
		expect(screen.text()).toContain("› hello there");
		await ready(screen);
		const { session } = await leave(screen);
		expectValidTrace(await events(fixture, session));
	});

	it("with nothing typed at the first prompt, the screen reads keys once it is up", async () => {
		const fixture = makeFixture();
		const screen = chat(fixture, [{ text: "ok" }]);
		await screen.waitFor(() => screen.visible().join("").includes("· sandbox"));
		screen.write("/help\r");
		await screen.waitFor("/policy <tool> <json>");
		await ready(screen);
		await leave(screen);
	});

	it("a chat that cannot start takes its early prompt away and says why in one line", async () => {
		const fixture = makeFixture();
		const screen = new PtyScreen(["--model", "nosuch:thing", "--workspace", fixture.workspace, "--state-dir", fixture.stateDir]);
		open.push(screen);
		expect(await screen.exited).not.toBe(0);
		// One line, wrapped by the terminal: joined, it is the error and nothing else.
		expect(screen.text().replace(/\n/g, "")).toMatch(/^warden: unknown model spec "nosuch:thing": [^\n›]*$/);
		expect(screen.raw.match(/\r?\n/g) ?? []).toHaveLength(1);
	});

	it("an exact release shows the payload's digest, its labels and the sink; n keeps the data", async () => {
		const fixture = makeFixture({ "secret.txt": "the launch code is 0000\n" });
		const configHome = join(fixture.dir, "config-home");
		mkdirSync(join(configHome, "warden"), { recursive: true });
		writeFileSync(
			join(configHome, "warden", "config.yaml"),
			"flow:\n  secret_files: ['secret.txt']\n  sinks:\n    - { sink: 'net:http://127.0.0.1:*', trust: untrusted, max: internal, release: secret }\n",
		);
		const post = { url: "http://127.0.0.1:9/x", method: "POST", body: "the code" };
		const screen = chat(
			fixture,
			[{ tool_calls: [{ name: "read_file", arguments: { path: "secret.txt" } }] }, { tool_calls: [{ name: "web_fetch", arguments: post }] }, { text: "kept it here" }],
			["--mode", "full-access"],
			{ env: { XDG_CONFIG_HOME: configHome } },
		);
		await ready(screen);
		screen.write("send it\r");
		const asked = await screen.waitFor("[y] release this payload once");
		expect(asked).toContain("Release data to net:http://127.0.0.1:9 once?");
		expect(asked).toMatch(/payload sha256 [0-9a-f]{64}/);
		expect(asked).toMatch(/labels secret, \w+ from .*secret\.txt/);
		screen.write("n");
		await screen.waitFor("kept it here");
		await ready(screen);
		const { session } = await leave(screen);
		const recorded = await events(fixture, session);
		expect(recorded.some((e) => e.kind === "flow.decided")).toBe(true);
		expectValidTrace(recorded);
	});

	it("!<command> runs the person's command through the governed pipeline: asked like the model's, its output on a card, recorded", async () => {
		const fixture = makeFixture();
		const screen = chat(fixture, [{ text: "unused" }], ["--ask", "shell(echo *)"]);
		await ready(screen);
		screen.write("!echo typed-by-the-person\r");
		const asked = await screen.waitFor("[y] allow once");
		expect(asked).toContain("Allow shell on echo typed-by-the-person?");
		expect(asked).toContain("asked by host-rule rule shell(echo *)");
		screen.write("y");
		await screen.waitFor("│ typed-by-the-person");
		await screen.waitFor("completed in");
		await ready(screen);
		await leave(screen);
		// Its own session, model user-shell, with the whole governed trace of the one call.
		const listed = await runCli(["sessions", "list", "--json", "--state-dir", fixture.stateDir]);
		const rows = listed.stdout.trim().startsWith("[") ? (JSON.parse(listed.stdout) as { id: string; model: string }[]) : listed.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: string; model: string });
		const shell = rows.find((r) => r.model === "user-shell");
		expect(shell).toBeDefined();
		const recorded = await events(fixture, (shell as { id: string }).id);
		expect(recorded.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ approved: true, response: "allow_once" });
		expect(recorded.some((e) => e.kind === "tool.completed")).toBe(true);
		expectValidTrace(recorded);
	});

	it("/policy answers as warden policy check does, running nothing", async () => {
		const fixture = makeFixture();
		const screen = chat(fixture, [{ text: "unused" }], ["--ask", "shell(git push*)"]);
		const check = await runCli(["policy", "check", "shell", '{"command":"git push origin main"}', "--workspace", fixture.workspace, "--state-dir", fixture.stateDir, "--ask", "shell(git push*)", "--mode", "workspace-write"]);
		// Compared without whitespace: a long row wraps at a space, and the wrap takes the space.
		const bare = (text: string) => text.replace(/\s+/g, "");
		const lines = check.stdout.split("\n").filter((l) => l.trim() !== "").map(bare);
		expect(lines.length).toBeGreaterThan(3);
		await ready(screen);
		screen.write('/policy shell {"command":"git push origin main"}\r');
		// Every line of the CLI's answer reaches the screen.
		const joined = () => bare(screen.text());
		await screen.waitFor(() => lines.every((line) => joined().includes(line)));
		for (const line of lines) expect(joined()).toContain(line);
		await ready(screen);
		await leave(screen);
	});

	it("ask_user puts the model's question to the person; the typed answer goes back to the model", async () => {
		const fixture = makeFixture();
		const screen = chat(fixture, [{ tool_calls: [{ name: "ask_user", arguments: { question: "Which file should I change?" } }] }, { text: "Thanks, noted." }]);
		await ready(screen);
		screen.write("help me\r");
		await screen.waitFor("The agent asks: Which file should I change?");
		await screen.waitFor("type your answer and press Enter");
		screen.write("notes.md\r");
		await screen.waitFor("Thanks, noted.");
		// The call's result, as the model read it, holds the answer.
		expect(screen.text()).toMatch(/│ .*notes\.md/);
		await ready(screen);
		const { session } = await leave(screen);
		const recorded = await events(fixture, session);
		expect(recorded.find((e) => e.kind === "tool.completed")?.payload).toMatchObject({ tool: "ask_user" });
		expectValidTrace(recorded);
	});

	it("/sessions lists this session and /resume <prefix> continues another one", async () => {
		const fixture = makeFixture();
		const first = chat(fixture, [{ text: "first answer" }]);
		await ready(first);
		first.write("one\r");
		await first.waitFor("first answer");
		await ready(first);
		const { session } = await leave(first);
		const screen = chat(fixture, [{ text: "second answer" }], [], {});
		await ready(screen);
		screen.write("/sessions\r");
		await screen.waitFor(session.slice(0, 8));
		await ready(screen);
		screen.write(`/resume ${session.slice(0, 8)}\r`);
		await screen.waitFor(`resumed session ${session}`);
		await ready(screen);
		const { session: after } = await leave(screen);
		expect(after).toBe(session);
	});

	it("n denies the write: the file stays as it was", async () => {
		const fixture = makeFixture({ "a.txt": "old\n" });
		const screen = chat(fixture, WRITE, ASK_WRITES);
		await ready(screen);
		screen.write("change a.txt\r");
		await screen.waitFor("[y] allow once");
		screen.write("n");
		await screen.waitFor(/⊘ write_file a\.txt/);
		await ready(screen);
		expect(readFileSync(`${fixture.workspace}/a.txt`, "utf8")).toBe("old\n");
		const { session } = await leave(screen);
		const recorded = await events(fixture, session);
		expect(recorded.find((e) => e.kind === "permission.confirmed")?.payload).toMatchObject({ approved: false, response: "deny" });
		expectValidTrace(recorded);
	});

	it("a always allows: the exact rule is persisted and the next session matches it without asking", async () => {
		const fixture = makeFixture({ "a.txt": "old\n" });
		const screen = chat(fixture, WRITE, ASK_WRITES);
		await ready(screen);
		screen.write("change a.txt\r");
		await screen.waitFor("[y] allow once");
		screen.write("a");
		await screen.waitFor("completed in");
		await ready(screen);
		await leave(screen);
		const rules = await runCli(["policy", "list", "--state-dir", fixture.stateDir, "--workspace", fixture.workspace]);
		expect(rules.stdout).toContain("write_file(a.txt)");
		// The next session: the same call, the same ask rule, decided by the persisted rule.
		const plan = writePlan(fixture, [{ tool_calls: [{ name: "write_file", arguments: { path: "a.txt", content: "again\n" } }] }, { text: "ok" }], "again.yaml");
		const next = await runCli(["run", "again", "--json", "--model", `scripted:${plan}`, "--workspace", fixture.workspace, "--state-dir", fixture.stateDir, ...ASK_WRITES]);
		const decided = next.stdout
			.split("\n")
			.filter((l) => l !== "")
			.map((l) => JSON.parse(l) as AnyWardenEvent)
			.find((e) => e.kind === "permission.decided");
		expect(decided?.payload).toMatchObject({ decision: "allow", rule: "write_file(a.txt)" });
		expect(readFileSync(`${fixture.workspace}/a.txt`, "utf8")).toBe("again\n");
	});

	it("keys typed before the ask was drawn never answer it", async () => {
		const fixture = makeFixture({ "a.txt": "old\n" });
		const screen = chat(fixture, WRITE, ASK_WRITES);
		await ready(screen);
		// A run of y's and a's right behind Enter: they reach the terminal before any ask can be drawn.
		screen.write("change a.txt\r");
		screen.write("yyyyaaaa");
		await screen.waitFor("[y] allow once");
		screen.write("n");
		await screen.waitFor(/⊘ write_file a\.txt/);
		expect(readFileSync(`${fixture.workspace}/a.txt`, "utf8")).toBe("old\n");
		// What landed in the prompt instead (typed while the turn started) is cleared with Ctrl-U.
		screen.write("\u0015");
		await ready(screen);
		const { session } = await leave(screen);
		const confirmed = (await events(fixture, session)).filter((e) => e.kind === "permission.confirmed");
		expect(confirmed.map((e) => e.payload)).toMatchObject([{ approved: false, response: "deny" }]);
	});

	it("Ctrl-C during sleep 30 cancels the turn; the next prompt works and the evidence is whole", async () => {
		const fixture = makeFixture();
		const screen = chat(fixture, [{ tool_calls: [{ name: "shell", arguments: { command: "sleep 30" } }] }, { text: "slept" }], ["--mode", "full-access"]);
		await ready(screen);
		screen.write("sleep\r");
		await screen.waitFor("running for");
		screen.write("\u0003");
		await screen.waitFor(/⊘ shell sleep 30/);
		await screen.waitFor("turn 1 cancelled");
		await ready(screen);
		screen.write("/budget\r");
		await screen.waitFor(/tool_calls\s+1/);
		const { code, session } = await leave(screen);
		expect(code).toBe(0);
		expectValidTrace(await events(fixture, session));
		const verify = await runCli(["audit", "verify", "--state-dir", fixture.stateDir]);
		expect(verify.code).toBe(0);
	});

	it("a running command's output shows on its card as it is written, before the command exits", async () => {
		const fixture = makeFixture();
		// The command goes on only once the test saw its first line: what is on screen came while it ran.
		const command = "echo first-line; while [ ! -f go ]; do sleep 0.05; done; echo second-line";
		const screen = chat(fixture, [{ tool_calls: [{ name: "shell", arguments: { command } }] }, { text: "both lines seen" }], ["--mode", "full-access"]);
		await ready(screen);
		screen.write("run it\r");
		const live = await screen.waitFor("│ first-line");
		expect(live).toContain("running");
		expect(live).not.toContain("│ second-line");
		writeFileSync(`${fixture.workspace}/go`, "");
		await screen.waitFor("│ second-line");
		await screen.waitFor("both lines seen");
		await ready(screen);
		const { session } = await leave(screen);
		expectValidTrace(await events(fixture, session));
	});

	it("Esc stops the running tool but not the turn: the model hears the call was cancelled and answers", async () => {
		const fixture = makeFixture();
		const screen = chat(fixture, [{ tool_calls: [{ name: "shell", arguments: { command: "sleep 30" } }] }, { text: "the sleep was stopped" }], ["--mode", "full-access"]);
		await ready(screen);
		screen.write("sleep\r");
		await screen.waitFor("running for");
		screen.write("\u001b");
		await screen.waitFor(/⊘ shell sleep 30/);
		await screen.waitFor("the sleep was stopped");
		await ready(screen);
		const { session } = await leave(screen);
		const recorded = await events(fixture, session);
		expect(recorded.find((e) => e.kind === "turn.completed")?.payload).toMatchObject({ status: "completed" });
		expect(recorded.some((e) => e.kind === "tool.cancelled")).toBe(true);
		expectValidTrace(recorded);
	});

	it("Shift+Tab cycles to plan; entering full-access asks first, and n stays", async () => {
		const fixture = makeFixture();
		const screen = chat(fixture, [{ text: "ok" }]);
		await ready(screen);
		screen.write("\u001b[Z");
		await screen.waitFor(() => screen.visible().some((r) => r.startsWith("plan ·")));
		await ready(screen);
		screen.write("/mode full-access\r");
		await screen.waitFor("Enter full-access?");
		await screen.waitFor("[y] yes");
		screen.write("n");
		await screen.waitFor("staying in plan");
		expect(screen.visible().some((r) => r.startsWith("plan ·"))).toBe(true);
		await ready(screen);
		await leave(screen);
	});

	it("/undo puts the file back and /explain shows the call's tree", async () => {
		const fixture = makeFixture({ "a.txt": "old\n" });
		const screen = chat(fixture, WRITE);
		await ready(screen);
		screen.write("change a.txt\r");
		await screen.waitFor("Done.");
		await ready(screen);
		expect(readFileSync(`${fixture.workspace}/a.txt`, "utf8")).toBe("new\n");
		screen.write("/explain call_1_1_1\r");
		const explained = await screen.waitFor("decision allow by layer");
		expect(explained).toContain("call call_1_1_1 write_file");
		expect(explained).toMatch(/proposed by model call scripted:/);
		screen.write("/undo\r");
		await screen.waitFor("restored 1 file(s)");
		expect(readFileSync(`${fixture.workspace}/a.txt`, "utf8")).toBe("old\n");
		await leave(screen);
	});

	it("stays usable at 40 columns: the ask, its keys and the status line fit and answer", async () => {
		const fixture = makeFixture({ "a.txt": "old\n" });
		const screen = chat(fixture, WRITE, ASK_WRITES, { cols: 100 });
		await ready(screen);
		screen.resize(40, 40);
		screen.write("change a.txt\r");
		await screen.waitFor("allow once");
		const rows = screen.visible();
		expect(rows.every((r) => r.length <= 40)).toBe(true);
		expect(rows.some((r) => r.includes("sandbox"))).toBe(true);
		screen.write("y");
		await screen.waitFor("Done.");
		expect(readFileSync(`${fixture.workspace}/a.txt`, "utf8")).toBe("new\n");
		await leave(screen);
	});

	it("NO_COLOR: no colour anywhere on the screen; marks, +/- and the cursor underscore say what colour said", async () => {
		const fixture = makeFixture({ "a.txt": "old\n" });
		const screen = chat(fixture, WRITE, ASK_WRITES, { env: { NO_COLOR: "1" } });
		await screen.waitFor(() => screen.visible().some((r) => r === "› _"));
		screen.write("change a.txt\r");
		const asked = await screen.waitFor("[y] allow once");
		expect(asked).toContain("+new");
		expect(asked).toContain("-old");
		screen.write("y");
		await screen.waitFor("Done.");
		await screen.waitFor(/✓ write_file a\.txt/);
		await leave(screen);
		// No foreground or background colour, no inverse video: only bold and plain text.
		expect(screen.raw).not.toMatch(/\u001b\[(?:3[0-9]|9[0-7]|4[0-9]|10[0-7]|7)(?:;[0-9;]*)?m/);
	});

	it("--plain prints plain lines: no cursor movement, asks as lines answered by a line", async () => {
		const fixture = makeFixture({ "a.txt": "old\n" });
		const screen = chat(fixture, WRITE, [...ASK_WRITES, "--plain"], { env: { NO_COLOR: "1" } });
		await screen.waitFor(/^> /m);
		screen.write("change a.txt\r");
		await screen.waitFor("answer> ");
		screen.write("y\r");
		await screen.waitFor("turn 1 completed");
		screen.write("/exit\r");
		expect(await screen.exited).toBe(0);
		// Line-oriented: no cursor-up, no line erase, no colour.
		expect(screen.raw).not.toMatch(/\u001b\[\d*[AK]/);
		expect(screen.raw).not.toMatch(/\u001b\[\d+m/);
		expect(screen.text()).toContain("Allow write_file on a.txt?");
		expect(readFileSync(`${fixture.workspace}/a.txt`, "utf8")).toBe("new\n");
	});

	it("plan mode: the todo list shows live, the plan is kept with the session, and y carries it out in workspace-write", async () => {
		const fixture = makeFixture({ "a.txt": "old\n" });
		const todo = { items: [{ content: "read a.txt", status: "completed" }, { content: "plan the change", status: "in_progress" }] };
		const screen = chat(
			fixture,
			[{ tool_calls: [{ name: "todo_write", arguments: todo }] }, { text: "Plan: 1. write new into a.txt" }, ...WRITE],
			["--mode", "plan"],
		);
		await ready(screen);
		screen.write("plan the change\r");
		const shown = await screen.waitFor("Switch to workspace-write and carry out the plan?");
		expect(shown).toContain("[x] read a.txt");
		expect(shown).toContain("[>] plan the change");
		expect(shown).toContain("plan kept with the session");
		await screen.waitFor("[y] yes");
		screen.write("y");
		await screen.waitFor("Done.");
		await ready(screen);
		expect(readFileSync(`${fixture.workspace}/a.txt`, "utf8")).toBe("new\n");
		expect(screen.visible().some((r) => r.startsWith("workspace-write ·"))).toBe(true);
		const { session } = await leave(screen);
		const show = await runCli(["sessions", "show", session, "--state-dir", fixture.stateDir]);
		expect(show.stdout).toContain("plan (the last answer in plan mode):\n    Plan: 1. write new into a.txt");
		expectValidTrace(await events(fixture, session));
	});

	it("warden run --on-ask prompt asks on the terminal for one task: keys before the ask are dropped, y allows", async () => {
		const fixture = makeFixture({ "a.txt": "old\n" });
		const plan = writePlan(fixture, WRITE);
		const screen = new PtyScreen(["run", "change a.txt", "--on-ask", "prompt", "--model", `scripted:${plan}`, "--workspace", fixture.workspace, "--state-dir", fixture.stateDir, ...ASK_WRITES]);
		open.push(screen);
		screen.write("yyy");
		await screen.waitFor("answer>");
		expect(readFileSync(`${fixture.workspace}/a.txt`, "utf8")).toBe("old\n");
		expect(screen.text()).toContain("Allow write_file on a.txt?");
		screen.write("y");
		expect(await screen.exited).toBe(0);
		expect(screen.text()).toContain("allow_once");
		expect(screen.text()).toMatch(/hash chain valid/);
		expect(readFileSync(`${fixture.workspace}/a.txt`, "utf8")).toBe("new\n");
	});

	it("warden run --on-ask prompt without a terminal is refused in one line", async () => {
		const result = await runCli(["run", "x", "--on-ask", "prompt", "--model", "scripted:/nonexistent.yaml"]);
		expect(result.code).toBe(2);
		expect(result.stderr).toBe("warden: --on-ask prompt needs a terminal on standard input; use deny or allow in automation\n");
	});

	it("without a terminal on stdin says in one line to use warden run", async () => {
		const result = await runCli([]);
		expect(result.code).toBe(2);
		expect(result.stderr.trim().split("\n")).toHaveLength(1);
		expect(result.stderr).toContain("warden run");
	});
});
