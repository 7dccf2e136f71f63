/**
 * Streams the text of an `{"answer": "..."}` reply as the model writes it: the JSON string is
 * decoded piece by piece, so onTextDelta sees the answer, never the protocol around it. A reply
 * that turns out to be a tool call streams nothing.
 */

const OPENING = /^\s*\{\s*"answer"\s*:\s*"/;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

export class AnswerStream {
	private raw = "";
	/** Where the answer's characters start in `raw`; -1 until the opening is seen, -2 once it cannot be an answer. */
	private start = -1;
	private read = 0;
	private done = false;

	constructor(private readonly emit: (delta: string) => void) {}

	push(chunk: string): void {
		this.raw += chunk;
		if (this.done || this.start === -2) return;
		if (this.start === -1) {
			const match = OPENING.exec(this.raw);
			if (!match) {
				if (!couldOpen(this.raw)) this.start = -2;
				return;
			}
			this.start = match[0].length;
			this.read = this.start;
		}
		this.drain();
	}

	private drain(): void {
		let out = "";
		while (this.read < this.raw.length) {
			const c = this.raw[this.read]!;
			if (c === '"') {
				this.done = true;
				break;
			}
			if (c !== "\\") {
				out += c;
				this.read += 1;
				continue;
			}
			const next = this.raw[this.read + 1];
			if (next === undefined) break;
			if (next === "u") {
				const hex = this.raw.slice(this.read + 2, this.read + 6);
				if (hex.length < 4) break;
				out += String.fromCharCode(Number.parseInt(hex, 16));
				this.read += 6;
				continue;
			}
			out += ESCAPES[next] ?? next;
			this.read += 2;
		}
		if (out !== "") this.emit(out);
	}
}

/** Whether more text could still make `raw` open an answer. */
function couldOpen(raw: string): boolean {
	const compact = raw.replace(/\s+/g, "");
	const target = '{"answer":"';
	return target.startsWith(compact) || compact.startsWith(target);
}
