/**
 * The screen the README shows, captured from a real run: `warden` in a pseudo-terminal on the
 * scripted model, read back through the headless terminal emulator at the moment it asks before a
 * write, and written to docs/terminal-screen.txt. Only what changes from run to run is made
 * steady (the session id, the temporary directory, elapsed milliseconds), so the file changes
 * only when the screen does.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { expectValidTrace, makeFixture, runCli, writePlan } from "./cli-harness.js";
import { PtyScreen } from "./pty-harness.js";
import type { AnyWardenEvent } from "../../src/kernel/evidence/event-types.js";

const CAPTURE = fileURLToPath(new URL("../../docs/terminal-screen.txt", import.meta.url));

const open: PtyScreen[] = [];
afterEach(() => {
	for (const s of open.splice(0)) s.kill();
});

/** The run's own values in the screen text, each replaced by one steady stand-in. */
function steady(text: string, dir: string): string {
	return text
		.replaceAll(`${dir}/workspace`, "~/greeter")
		.replaceAll(dir, "~")
		.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "3f2a9c1e-7b4d-4e0a-9c51-2d8e6f1a0b7c")
		.replace(/\b(in|for) \d+ ms\b/g, "$1 3 ms");
}

describe("the README's screen", () => {
	it("is what warden draws when it asks before a write (docs/terminal-screen.txt)", async () => {
		const fixture = makeFixture({ "greet.txt": "hello\n" });
		writePlan(fixture, [
			{
				text: "I'll read the greeting first.",
				tool_calls: [
					{ name: "todo_write", arguments: { items: [{ content: "read greet.txt", status: "completed" }, { content: "make the greeting friendlier", status: "in_progress" }] } },
					{ name: "read_file", arguments: { path: "greet.txt" } },
				],
			},
			{ text: "Changing it to say hello to the world.", tool_calls: [{ name: "write_file", arguments: { path: "greet.txt", content: "hello, world\n" } }] },
			{ text: "Done: greet.txt now says hello, world." },
		]);
		const screen = new PtyScreen(["--model", "scripted:plan.yaml", "--workspace", "workspace", "--state-dir", fixture.stateDir, "--ask", "write_file(greet.txt)"], { cols: 100, rows: 50, cwd: fixture.dir, env: { NO_COLOR: "1" } });
		open.push(screen);
		await screen.waitFor(() => screen.visible().some((r) => r === "› _"));
		screen.write("make the greeting friendlier\r");
		await screen.waitFor("[y] allow once");
		const shown = steady(screen.text(), fixture.dir);
		writeFileSync(CAPTURE, `${shown}\n`);
		// What the README says the screen shows is on it.
		for (const part of ["› make the greeting friendlier", "[x] read greet.txt", "[>] make the greeting friendlier", "✓ read_file greet.txt", "Allow write_file on greet.txt?", "+hello, world", "-hello", "a persists allow write_file(greet.txt)", "[y] allow once  [a] always allow  [d] always deny  [n/Esc] deny", "workspace-write · scripted:plan.yaml"]) {
			expect(shown).toContain(part);
		}
		expect(readFileSync(CAPTURE, "utf8")).toBe(`${shown}\n`);
		screen.write("y");
		await screen.waitFor("Done: greet.txt now says hello, world.");
		expect(readFileSync(`${fixture.workspace}/greet.txt`, "utf8")).toBe("hello, world\n");
		screen.write("\u0004");
		expect(await screen.exited).toBe(0);
		const session = /session ([0-9a-f-]{36}) · audit/.exec(screen.text().replace(/\n/g, ""))?.[1] as string;
		const shownEvents = await runCli(["sessions", "show", session, "--json", "--state-dir", fixture.stateDir]);
		expectValidTrace((JSON.parse(shownEvents.stdout) as { events: AnyWardenEvent[] }).events);
	});
});
