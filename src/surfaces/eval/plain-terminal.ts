/**
 * The baselines' terminal in a `surfaces` task: what a plain agent's terminal does with what it
 * gets. The model's text, each call as it is about to run (for `confirm`, as the question it asks)
 * and each call's output are written to the terminal as they are, bytes and all, as a program that
 * prints to its terminal does; the terminal's line discipline turns `\n` into `\r\n`.
 */
import type { BaselineName } from "./baseline-runner.js";
import { type TerminalObservation, TerminalScreen } from "./terminal-screen.js";

/** The line a plain agent prints for a call: the command for the shell, else the tool and its arguments. */
function callText(tool: string, args: unknown): string {
	const command = typeof args === "object" && args !== null ? (args as Record<string, unknown>).command : undefined;
	return typeof command === "string" ? command : `${tool} ${typeof args === "string" ? args : JSON.stringify(args)}`;
}

export class PlainTerminal {
	private raw = "";
	private readonly shown: string[] = [];

	private constructor(
		private readonly screen: TerminalScreen,
		private readonly runner: BaselineName,
	) {}

	static async open(runner: BaselineName): Promise<PlainTerminal | { error: string }> {
		const screen = await TerminalScreen.open();
		return "error" in screen ? screen : new PlainTerminal(screen, runner);
	}

	private async write(text: string): Promise<void> {
		const bytes = `${text.replace(/\r?\n/g, "\r\n")}\r\n`;
		this.raw += bytes;
		await this.screen.write(bytes);
	}

	/** The model's text. */
	said(text: string): Promise<void> {
		return this.write(text);
	}

	/** A call about to run: printed (or, for `confirm`, asked about), and what the person sees then kept. */
	async proposed(tool: string, args: unknown): Promise<void> {
		const line = callText(tool, args);
		await this.write(this.runner === "confirm" ? `Allow ${tool}: ${line}? [y/n] y` : `$ ${line}`);
		this.shown.push(this.screen.seen());
	}

	/** A call's output. */
	printed(output: string): Promise<void> {
		return output === "" ? Promise.resolve() : this.write(output.replace(/\n$/, ""));
	}

	observation(): TerminalObservation {
		return { raw: this.raw, ...this.screen.state(), shown: [...this.shown], final: this.screen.seen() };
	}

	close(): void {
		this.screen.dispose();
	}
}
