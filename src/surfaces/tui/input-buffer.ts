/**
 * The prompt's text as the keys edit it: multi-line entry (Alt+Enter, or a line ending in `\`),
 * and the history of what was sent, walked with ↑/↓. Pure, so it is tested without a terminal.
 */
export class InputBuffer {
	text = "";
	private readonly history: string[] = [];
	/** Where ↑/↓ stand in the history; history.length is the line being typed. */
	private at = 0;
	private draft = "";

	insert(chars: string): void {
		// A paste's line breaks stay line breaks; other control characters are dropped.
		this.text += chars.replace(/\r\n?/g, "\n").replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, "");
	}

	newline(): void {
		this.text += "\n";
	}

	backspace(): void {
		this.text = [...this.text].slice(0, -1).join("");
	}

	clear(): void {
		this.text = "";
	}

	/** Enter: a line ending in `\` continues on the next; otherwise the text is taken and remembered. */
	submit(): string | undefined {
		if (this.text.endsWith("\\")) {
			this.text = `${this.text.slice(0, -1)}\n`;
			return undefined;
		}
		const line = this.text;
		this.text = "";
		if (line.trim() !== "" && this.history[this.history.length - 1] !== line) this.history.push(line);
		this.at = this.history.length;
		this.draft = "";
		return line;
	}

	up(): void {
		if (this.at === 0) return;
		if (this.at === this.history.length) this.draft = this.text;
		this.at -= 1;
		this.text = this.history[this.at] ?? "";
	}

	down(): void {
		if (this.at >= this.history.length) return;
		this.at += 1;
		this.text = this.at === this.history.length ? this.draft : (this.history[this.at] ?? "");
	}
}
