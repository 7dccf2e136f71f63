/**
 * Redaction at the terminal equal to every other surface: a workspace whose `.env` holds a canary
 * secret, a scripted model that reads it with the shell and with read_file, writes it into a file
 * (asked, so its diff is on the ask card) and says it in its streamed answer. Every byte that
 * reached the pseudo-terminal, from start to exit, is checked not to hold the canary, in the
 * screen, in --plain and in `warden run --on-ask prompt`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadPty, PtyScreen as BareScreen } from "../../src/surfaces/bench/pty-screen.js";
import { BIN, CONFIG_HOME, type Fixture, makeFixture, STATE_HOME, writePlan } from "./cli-harness.js";
import { PtyScreen } from "./pty-harness.js";

const modules = await loadPty();
if (!modules) throw new Error("the terminal tests need the dev dependencies @lydell/node-pty and @xterm/headless");

const open: BareScreen[] = [];
afterEach(() => {
	for (const s of open.splice(0)) s.kill();
});

const CANARY = "canary-4b1d9e7f2a";
const ENV = `LAUNCH_CODE=${CANARY}\n`;

const PLAN = [
	// The shell read alone first: its live output is drawn before anything else taught the redactor the value.
	{ tool_calls: [{ name: "shell", arguments: { command: "cat .env" } }] },
	{ tool_calls: [{ name: "read_file", arguments: { path: ".env" } }] },
	{ text: `The launch code is ${CANARY} and I will note it.`, tool_calls: [{ name: "write_file", arguments: { path: "notes.txt", content: `code ${CANARY}\n` } }] },
	{ text: `Noted ${CANARY} in notes.txt.` },
];
const ASK_NOTES = ["--ask", "write_file(notes.txt)"];

function fixture(): Fixture {
	return makeFixture({ ".env": ENV, "notes.txt": "old\n" });
}

/** The canary never reached the terminal, and the run really handled it: the file holds it, the screen shows the mask. */
function expectRedacted(screen: BareScreen, fx: Fixture): void {
	expect(screen.raw.includes(CANARY), "the raw pty stream holds the canary").toBe(false);
	// Nor in pieces split by the terminal's own line wrapping or cursor moves.
	expect(screen.text().replace(/\s+/g, "").includes(CANARY)).toBe(false);
	expect(screen.text()).toContain("[REDACTED]");
	expect(readFileSync(join(fx.workspace, "notes.txt"), "utf8")).toBe(`code ${CANARY}\n`);
}

describe("the terminal redacts like every other surface", () => {
	it("the screen: shell and read_file output, the ask's diff and the streamed answer never show the secret", async () => {
		const fx = fixture();
		const plan = writePlan(fx, PLAN);
		const screen = new PtyScreen(["--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, ...ASK_NOTES]);
		open.push(screen);
		await screen.waitFor(() => screen.visible().some((row) => row === "›"));
		screen.write("use the launch code\r");
		await screen.waitFor("[y] allow once");
		screen.write("y");
		await screen.waitFor("in notes.txt.");
		await screen.waitFor(() => screen.visible().some((row) => row === "›"));
		screen.write("\u0004");
		expect(await screen.exited).toBe(0);
		expectRedacted(screen, fx);
	});

	it("--plain: the same run prints no byte of the secret", async () => {
		const fx = fixture();
		const plan = writePlan(fx, PLAN);
		const screen = new PtyScreen(["--plain", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, ...ASK_NOTES]);
		open.push(screen);
		await screen.waitFor(/^> /m);
		screen.write("use the launch code\r");
		await screen.waitFor("answer> ");
		screen.write("y\r");
		await screen.waitFor("turn 1 completed");
		screen.write("/exit\r");
		expect(await screen.exited).toBe(0);
		expectRedacted(screen, fx);
	});

	it("warden run --on-ask prompt: the ask's arguments and diff are redacted", async () => {
		const fx = fixture();
		const plan = writePlan(fx, PLAN);
		const out = join(fx.dir, "run.out");
		const script = join(fx.dir, "run.sh");
		writeFileSync(script, `exec "$@" > ${JSON.stringify(out)}\n`);
		const args = [BIN, "run", "use the launch code", "--on-ask", "prompt", "--model", `scripted:${plan}`, "--workspace", fx.workspace, "--state-dir", fx.stateDir, ...ASK_NOTES];
		const screen = new BareScreen(modules as NonNullable<typeof modules>, "/bin/sh", [script, process.execPath, ...args], {
			env: { WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME },
		});
		open.push(screen);
		await screen.waitFor("answer>");
		expect(screen.text()).toContain("Allow write_file on notes.txt?");
		screen.write("y");
		expect(await screen.exited).toBe(0);
		expectRedacted(screen, fx);
	});
});
