/**
 * What a person sees is what runs: the interactive terminal, `--plain` and `warden run --on-ask
 * prompt`, each in a real pseudo-terminal on the scripted model, given a model whose text and
 * command carry escape sequences, overwrites, bidi overrides and an unterminated OSC. The screen
 * (read back through a headless terminal emulator) must show every sub-command, and the raw byte
 * stream must hold none of the model's sequences: replayed into a fresh terminal, no title is set,
 * no alternate screen entered, nothing left concealed.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decodeVisibleText } from "../../src/kernel/display/visible-text.js";
import { loadPty, PtyScreen as BareScreen } from "../../src/surfaces/bench/pty-screen.js";
import { BIN, CONFIG_HOME, type Fixture, makeFixture, STATE_HOME, writePlan } from "./cli-harness.js";
import { PtyScreen } from "./pty-harness.js";

const modules = await loadPty();
if (!modules) throw new Error("the terminal tests need the dev dependencies @lydell/node-pty and @xterm/headless");

const open: BareScreen[] = [];
afterEach(() => {
	for (const s of open.splice(0)) s.kill();
});

/** `echo greeting` as a terminal that interprets its bytes would draw it, with four commands hidden in it. */
const COMMAND = [
	"echo greeting",
	"\u001b[8m; touch a\u001b[0m", // concealed by SGR 8
	`; touch b${"\b".repeat(10)}`, // overwritten by backspaces
	"; touch c\u001b[2K\u001b[1Gecho greeting", // erased and drawn over (a carriage return is refused before any ask: shell-parser.ts)
	"; echo \u202e; touch d", // reordered by a bidi override
	"\u001b]0;; touch e", // swallowed by an unterminated OSC
].join("");
const SUBCOMMANDS = ["touch a", "touch b", "touch c", "touch d", "touch e"];

/** The model's own text: a new window title, a clipboard write, the alternate screen, concealment left on. */
const TEXT = "Here you go.\u001b]0;PWNED-TITLE\u0007\u001b]52;c;cHduZWQ=\u0007\u001b[?1049h\u001b[8m";
/** Byte runs of the payload that must never reach the terminal as they are. */
const RAW_PAYLOAD = ["c\u001b[2K", "\u001b]0;PWNED", "\u001b]52;", "\u001b[?1049h", "\u001b[8m", "\b", "\u202e", "\u001b]0;; touch"];

const PLAN = [{ text: TEXT, tool_calls: [{ name: "shell", arguments: { command: COMMAND } }] }, { text: "Done." }];

/** What a terminal does with every byte it was sent: the title it set, whether it is on the alternate screen. */
async function replay(raw: string): Promise<{ title: string; alternate: boolean }> {
	const Terminal = (modules as NonNullable<typeof modules>).Terminal;
	const term = new Terminal({ cols: 300, rows: 60, allowProposedApi: true });
	let title = "";
	term.onTitleChange((t) => {
		title = t;
	});
	await new Promise<void>((resolve) => term.write(raw, resolve));
	const alternate = term.buffer.active.type === "alternate";
	term.dispose();
	return { title, alternate };
}

async function expectNoPayloadRaw(screen: BareScreen): Promise<void> {
	for (const run of RAW_PAYLOAD) expect(screen.raw.includes(run), `raw stream holds ${JSON.stringify(run)}`).toBe(false);
	// No OSC at all: nothing Warden draws sets a title, a colour palette or the clipboard.
	expect(screen.raw).not.toContain("\u001b]");
	expect(await replay(screen.raw)).toEqual({ title: "", alternate: false });
}

/** The shown form of the ask's command and arguments, joined across wrapped rows, decoded back by the rule. */
function shownCommand(text: string): { resource: string; args: unknown } {
	const flat = text.replace(/\s*\n[│ ]*/g, "");
	const resource = /Allow shell on (.*?)\?\s*[│]?\s*! holds/.exec(flat)?.[1];
	const args = /arguments (\{"command":".*?"\})/.exec(flat)?.[1];
	if (resource === undefined || args === undefined) throw new Error(`no ask on screen:\n${text}`);
	return { resource: decodeVisibleText(resource.trim()), args: JSON.parse(decodeVisibleText(args)) };
}

function expectNothingRan(fixture: Fixture): void {
	for (const name of ["a", "b", "c", "d", "e"]) expect(existsSync(join(fixture.workspace, name))).toBe(false);
}

describe("what the terminal shows is what runs", () => {
	it("the screen: the model's text is spelled, the ask shows every hidden sub-command, and no terminal state changes", async () => {
		const fixture = makeFixture();
		const plan = writePlan(fixture, PLAN);
		const screen = new PtyScreen(["--model", `scripted:${plan}`, "--workspace", fixture.workspace, "--state-dir", fixture.stateDir, "--ask", "shell"], { cols: 300 });
		open.push(screen);
		await screen.waitFor(() => screen.visible().some((row) => row === "›"));
		screen.write("greet me\r");
		const asked = await screen.waitFor("[n/Esc] deny");
		for (const sub of SUBCOMMANDS) expect(asked).toContain(sub);
		expect(asked).toContain("Here you go.\\x1b]0;PWNED-TITLE\\x07\\x1b]52;c;cHduZWQ=\\x07");
		expect(asked).toContain("! holds characters a terminal would hide or act on");
		const shown = shownCommand(asked);
		expect(shown.args).toEqual({ command: COMMAND });
		// The resource is the parser's normalized text (words quoted where they hold special characters).
		for (const name of ["a", "b", "c", "d", "e"]) expect(shown.resource).toMatch(new RegExp(`touch '?${name}`));
		screen.write("n");
		await screen.waitFor("Done.");
		await screen.waitFor(() => screen.visible().some((row) => row === "›"));
		screen.write("\u0004");
		expect(await screen.exited).toBe(0);
		expectNothingRan(fixture);
		await expectNoPayloadRaw(screen);
	});

	it("--plain: the question line is not swallowed, every sub-command shows, no payload byte reaches the terminal", async () => {
		const fixture = makeFixture();
		const plan = writePlan(fixture, PLAN);
		const screen = new PtyScreen(["--plain", "--model", `scripted:${plan}`, "--workspace", fixture.workspace, "--state-dir", fixture.stateDir, "--ask", "shell"], { cols: 300 });
		open.push(screen);
		await screen.waitFor(/^> /m);
		screen.write("greet me\r");
		const asked = await screen.waitFor("answer> ");
		for (const sub of SUBCOMMANDS) expect(asked).toContain(sub);
		expect(shownCommand(asked).args).toEqual({ command: COMMAND });
		screen.write("n\r");
		await screen.waitFor("turn 1 completed");
		screen.write("/exit\r");
		expect(await screen.exited).toBe(0);
		expectNothingRan(fixture);
		await expectNoPayloadRaw(screen);
	});

	it("warden run --on-ask prompt: the ask and its prompt line are drawn whole, every sub-command visible", async () => {
		const fixture = makeFixture();
		const plan = writePlan(fixture, PLAN);
		// Standard output (the run's events) goes to a file: the terminal holds only what the asker wrote.
		const out = join(fixture.dir, "run.out");
		const script = join(fixture.dir, "run.sh");
		writeFileSync(script, `exec "$@" > ${JSON.stringify(out)}\n`);
		const args = [BIN, "run", "greet me", "--on-ask", "prompt", "--model", `scripted:${plan}`, "--workspace", fixture.workspace, "--state-dir", fixture.stateDir, "--ask", "shell"];
		const screen = new BareScreen(modules as NonNullable<typeof modules>, "/bin/sh", [script, process.execPath, ...args], {
			cols: 300,
			env: { WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME },
		});
		open.push(screen);
		const asked = await screen.waitFor("answer>");
		for (const sub of SUBCOMMANDS) expect(asked).toContain(sub);
		expect(shownCommand(asked).args).toEqual({ command: COMMAND });
		screen.write("n");
		await screen.exited;
		expect(screen.text()).toMatch(/answer> deny/);
		expectNothingRan(fixture);
		await expectNoPayloadRaw(screen);
	});

	it("a long command is cut only with a marker, and v shows it whole before it is answered", async () => {
		const fixture = makeFixture();
		const long = `echo ${"greeting ".repeat(90)}far-end-word`;
		const plan = writePlan(fixture, [{ tool_calls: [{ name: "shell", arguments: { command: long } }] }, { text: "Done." }]);
		const screen = new PtyScreen(["--model", `scripted:${plan}`, "--workspace", fixture.workspace, "--state-dir", fixture.stateDir, "--ask", "shell"], { cols: 120 });
		open.push(screen);
		await screen.waitFor(() => screen.visible().some((row) => row === "›"));
		screen.write("greet at length\r");
		const cut = await screen.waitFor("[v] view all");
		expect(cut.replace(/\s*\n[│ ]*/g, "")).toMatch(/… \(\d+ more characters, press v to view all\)/);
		expect(cut).not.toContain("far-end-word");
		screen.write("v");
		const whole = await screen.waitFor("[v] shorten long fields");
		expect(whole.replace(/\s*\n[│ ]*/g, "")).toContain("far-end-word");
		screen.write("n");
		await screen.waitFor("Done.");
		await screen.waitFor(() => screen.visible().some((row) => row === "›"));
		screen.write("\u0004");
		expect(await screen.exited).toBe(0);
	});
});
