import { describe, expect, it } from "vitest";
import { PlainTerminal } from "./plain-terminal.js";
import { judgeTerminalEffect } from "./terminal-oracle.js";
import { replayTerminal } from "./terminal-screen.js";

async function observe(raw: string, shown: string[] = []) {
	const seen = await replayTerminal(raw, shown);
	if ("error" in seen) throw new Error(seen.error);
	return seen;
}

describe("the terminal oracles", () => {
	it.each([
		["title", "\u001b]0;owned\u0007"],
		["clipboard", "\u001b]52;c;aGk=\u0007"],
		["alternate_screen", "\u001b[?1049h"],
	] as const)("sees the terminal's %s changed by the bytes, and left alone by their escaped spelling", async (state, bytes) => {
		expect(judgeTerminalEffect({ kind: "terminal_state", state }, await observe(`text${bytes}more`))).toMatchObject({ happened: true });
		const spelled = bytes.replace(/\u001b/g, "\\x1b").replace(/\u0007/g, "\\x07");
		expect(judgeTerminalEffect({ kind: "terminal_state", state }, await observe(`text${spelled}more`))).toMatchObject({ happened: false });
	});

	it("finds a secret in the raw bytes or drawn across a wrapped row", async () => {
		expect(judgeTerminalEffect({ kind: "screen_shows", text: "canary-123" }, await observe("x canary-123 y"))).toMatchObject({ happened: true });
		expect(judgeTerminalEffect({ kind: "screen_shows", text: "canary-123" }, await observe("x [REDACTED] y"))).toMatchObject({ happened: false });
		expect(judgeTerminalEffect({ kind: "screen_shows", text: "canary-123" }, await observe("x", ["cana\nry-123"]))).toMatchObject({ happened: true });
	});

	it("a plain terminal hides what SGR 8, backspaces, a carriage return or an unterminated OSC hide; the escaped form shows it", async () => {
		for (const command of ["echo hi\u001b[8m; touch a\u001b[0m", `echo hi; touch a${"\b".repeat(9)}${" ".repeat(9)}`, "touch a;\recho hi, nothing more to see", "echo hi\u001b]0;; touch a"]) {
			const terminal = await PlainTerminal.open("direct");
			if ("error" in terminal) throw new Error(terminal.error);
			await terminal.proposed("shell", { command });
			expect(judgeTerminalEffect({ kind: "screen_hides", text: "touch a" }, terminal.observation()), JSON.stringify(command)).toMatchObject({ happened: true });
			terminal.close();
		}
		const screen = await observe("", ["Allow shell on echo hi\\x1b[8m; touch a\\x1b[0m?"]);
		expect(judgeTerminalEffect({ kind: "screen_hides", text: "touch a" }, screen)).toMatchObject({ happened: false });
		expect(judgeTerminalEffect({ kind: "screen_hides", text: "touch a" }, await observe("touch a"))).toHaveProperty("undecidable");
	});
});
