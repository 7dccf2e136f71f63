/**
 * A terminal as a person has it, for the `surfaces` tasks: every byte a run sent to it is played
 * into a headless terminal emulator (@xterm/headless, a dev dependency), which keeps what the
 * bytes did to the terminal (its title, a clipboard write, the alternate screen) and what a person
 * sees on it: cells drawn concealed (SGR 8) count as blank, text drawn over (backspace, carriage
 * return) as gone, text an unterminated sequence swallowed as never drawn.
 */
import type { Terminal } from "@xterm/headless";
import { loadPty } from "../bench/pty-screen.js";

/** What a run's bytes did to the terminal, and what it showed. */
export interface TerminalObservation {
	/** Every byte the terminal was sent, start to exit. */
	raw: string;
	/** The terminal's title was set. */
	title: boolean;
	/** The clipboard was written (OSC 52). */
	clipboard: boolean;
	/** The alternate screen was entered at some point. */
	alternateScreen: boolean;
	/** What a person saw at each moment a call was put to them (an ask, or a call printed before it ran). */
	shown: string[];
	/** What a person sees at the end, scrollback included. */
	final: string;
}

const CLIPBOARD_OSC = 52;

export class TerminalScreen {
	private title = false;
	private clipboard = false;
	private alternate = false;

	private constructor(private readonly term: Terminal) {
		term.onTitleChange(() => {
			this.title = true;
		});
		term.buffer.onBufferChange((buffer) => {
			if (buffer.type === "alternate") this.alternate = true;
		});
		// Handled (true), so the emulator does nothing more with it: the write is what is observed.
		term.parser.registerOscHandler(CLIPBOARD_OSC, () => {
			this.clipboard = true;
			return true;
		});
	}

	/** A fresh terminal, or a one-line reason there is none (the dev dependency is not installed). */
	static async open(cols = 200, rows = 50): Promise<TerminalScreen | { error: string }> {
		const modules = await loadPty();
		if (!modules) return { error: "the surfaces tasks need the dev dependencies @lydell/node-pty and @xterm/headless" };
		return new TerminalScreen(new modules.Terminal({ cols, rows, scrollback: 5000, allowProposedApi: true }));
	}

	write(bytes: string): Promise<void> {
		return new Promise((resolve) => this.term.write(bytes, resolve));
	}

	/** The screen and scrollback as a person sees it: concealed cells blank, one row a line. */
	seen(): string {
		const buffer = this.term.buffer.active;
		const rows: string[] = [];
		for (let y = 0; y < buffer.length; y++) {
			const line = buffer.getLine(y);
			if (!line) continue;
			let row = "";
			for (let x = 0; x < line.length; x++) {
				const cell = line.getCell(x);
				if (!cell || cell.getWidth() === 0) continue;
				row += cell.isInvisible() ? " " : cell.getChars() || " ";
			}
			rows.push(row.trimEnd());
		}
		return rows.join("\n").replace(/\n+$/, "");
	}

	state(): Pick<TerminalObservation, "title" | "clipboard" | "alternateScreen"> {
		return { title: this.title, clipboard: this.clipboard, alternateScreen: this.alternate };
	}

	dispose(): void {
		this.term.dispose();
	}
}

/** What `raw` does to a fresh terminal: its state, and what a person sees once it is all drawn. */
export async function replayTerminal(raw: string, shown: string[], cols?: number, rows?: number): Promise<TerminalObservation | { error: string }> {
	const screen = await TerminalScreen.open(cols, rows);
	if ("error" in screen) return screen;
	try {
		await screen.write(raw);
		return { raw, ...screen.state(), shown, final: screen.seen() };
	} finally {
		screen.dispose();
	}
}

/** What a person saw after `raw` so far. */
export async function seenAfter(raw: string, cols?: number, rows?: number): Promise<string> {
	const screen = await TerminalScreen.open(cols, rows);
	if ("error" in screen) return "";
	try {
		await screen.write(raw);
		return screen.seen();
	} finally {
		screen.dispose();
	}
}
