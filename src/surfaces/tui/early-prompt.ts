/**
 * The prompt drawn the moment the chat starts, before the screen (Ink, React), the runtime and the
 * model have loaded: the terminal goes raw, keys are echoed and kept, and when the screen takes
 * over they are handed to it in the order typed, as if they had been typed there. Nothing typed
 * here is answered here: an Enter, Ctrl-C or Ctrl-D is the screen's to act on once it runs, so the
 * early prompt can never approve, cancel or send anything by itself.
 */
import { StringDecoder } from "node:string_decoder";
import { displayText } from "./display-line.js";

export interface EarlyTerminal {
	input: NodeJS.ReadStream;
	output: NodeJS.WriteStream;
}

/** The prompt row as the screen draws it: the mark, then the cursor block (an underscore without colour). */
export function promptCursor(noColor: boolean): string {
	return noColor ? "_" : "\u001b[7m \u001b[27m";
}

export class EarlyPrompt {
	private readonly kept: Buffer[] = [];
	private readonly decoder = new StringDecoder("utf8");
	private echoed = "";
	/** Set at the first key that is not plain text (Enter, an arrow, a control key): echo stops there. */
	private echoing = true;
	private done = false;

	private constructor(
		private readonly term: EarlyTerminal,
		private readonly noColor: boolean,
	) {}

	/** Draws the prompt, or does nothing (undefined) where the terminal cannot go raw. */
	static draw(term: EarlyTerminal, noColor: boolean): EarlyPrompt | undefined {
		if (!term.input.isTTY || !term.output.isTTY || typeof term.input.setRawMode !== "function") return undefined;
		const prompt = new EarlyPrompt(term, noColor);
		term.input.setRawMode(true);
		// Read as Ink reads ("readable", not "data"): a paused TTY stream that Ink then reads never wakes up again.
		term.input.on("readable", prompt.onReadable);
		prompt.redraw();
		return prompt;
	}

	/** What was typed so far, for the screen to read first. */
	get typed(): Buffer {
		return Buffer.concat(this.kept);
	}

	private readonly onReadable = () => {
		for (;;) {
			const chunk = this.term.input.read() as Buffer | string | null;
			if (chunk === null) return;
			this.onData(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
		}
	};

	private onData(bytes: Buffer): void {
		this.kept.push(bytes);
		if (!this.echoing) return;
		for (const ch of this.decoder.write(bytes)) {
			if (ch === "\u007f" || ch === "\b") this.echoed = [...this.echoed].slice(0, -1).join("");
			else if (ch >= " ") this.echoed += ch;
			else {
				this.echoing = false;
				break;
			}
		}
		this.redraw();
	}

	private redraw(): void {
		if (this.done) return;
		// Echoed by the display rule, as the screen will draw it: a pasted C1 control or bidi override is spelled.
		this.term.output.write(`\r\u001b[2K› ${displayText(this.echoed)}${this.echoing ? promptCursor(this.noColor) : ""}`);
	}

	/**
	 * The screen is about to draw: the early row is erased and every key typed is put back at the
	 * front of the input, where the screen's first read finds it. The terminal stays raw, so no key
	 * typed in between is echoed or held back by the terminal's own line editing, and the stream
	 * keeps reading (not paused), so a key typed before the screen listens waits in its buffer.
	 */
	handOver(): void {
		if (this.done) return;
		this.done = true;
		this.term.input.off("readable", this.onReadable);
		this.term.output.write("\r\u001b[2K");
		const typed = this.typed;
		if (typed.length > 0) this.term.input.unshift(typed);
	}

	/** The chat did not start (a bad flag, a model that cannot be made): the row goes, the terminal is as it was. */
	withdraw(): void {
		if (this.done) return;
		this.done = true;
		this.term.input.off("readable", this.onReadable);
		this.term.input.pause();
		this.term.output.write("\r\u001b[2K");
		this.term.input.setRawMode(false);
	}
}
