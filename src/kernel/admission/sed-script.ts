/**
 * Whether a sed script only edits the stream it prints. GNU sed can also run commands (`e`, the
 * `s///e` flag), write files (`w`, `W`, the `s///w` flag) and read files the path checks never see
 * (`r`, `R`). The script is read with sed's own grammar, command by command; anything this reader
 * does not recognize counts as unsafe, so a misreading can only refuse, never allow.
 */

/** Commands that take no argument (or only a number) and only touch the pattern and hold spaces. */
const PLAIN = new Set(["=", "d", "D", "g", "G", "h", "H", "l", "L", "n", "N", "p", "P", "x", "z", "F", "q", "Q", "{", "}"]);
/** Commands whose argument is a label running to the end of the command. */
const LABELLED = new Set([":", "b", "t", "T", "v"]);
/** Commands whose argument is text to print, running to the end of the line. */
const TEXT = new Set(["a", "i", "c"]);
const RISKY: Record<string, string> = {
	e: "its e command runs a shell command",
	w: "its w command writes a file",
	W: "its W command writes a file",
	r: "its r command reads a file the path checks do not see",
	R: "its R command reads a file the path checks do not see",
};
const S_FLAGS = /[gpiImM0-9]/;

class SedReader {
	i = 0;
	constructor(private readonly s: string) {}

	get done(): boolean {
		return this.i >= this.s.length;
	}
	peek(): string {
		return this.s[this.i] ?? "";
	}
	skip(chars: RegExp): void {
		while (!this.done && chars.test(this.peek())) this.i++;
	}
	toEndOfCommand(): void {
		while (!this.done && !/[;\n}]/.test(this.peek())) this.i++;
	}
	/** Past the part that ends at the unescaped `delim`; false when it never ends. */
	delimited(delim: string): boolean {
		while (!this.done) {
			const c = this.s[this.i++];
			if (c === "\\") this.i++;
			else if (c === delim) return true;
		}
		return false;
	}
	/** One address (`12`, `$`, `/re/I`, `\,re,`, `~2`, `+3`); false when it is malformed. */
	address(): boolean {
		const c = this.peek();
		if (/[0-9]/.test(c)) {
			this.skip(/[0-9]/);
			if (this.peek() === "~") {
				this.i++;
				this.skip(/[0-9]/);
			}
			return true;
		}
		if (c === "$") {
			this.i++;
			return true;
		}
		if (c === "/" || c === "\\") {
			this.i++;
			const delim = c === "/" ? "/" : this.s[this.i++];
			if (delim === undefined || delim === "\n" || delim === "\\" || !this.delimited(delim)) return false;
			this.skip(/[IM]/);
			return true;
		}
		return true;
	}
}

/** Why the script may do more than print, or undefined when it only edits the stream. */
export function sedScriptRisk(script: string): string | undefined {
	const r = new SedReader(script);
	for (;;) {
		r.skip(/[\s;]/);
		if (r.done) return undefined;
		if (r.peek() === "#") {
			while (!r.done && r.peek() !== "\n") r.i++;
			continue;
		}
		if (!r.address()) return "its address does not parse";
		r.skip(/[ \t]/);
		if (r.peek() === ",") {
			r.i++;
			r.skip(/[ \t]/);
			if (r.peek() === "+" || r.peek() === "~") r.i++;
			if (!r.address()) return "its address does not parse";
		}
		r.skip(/[ \t!]/);
		const command = script[r.i++] ?? "";
		const risky = RISKY[command];
		if (risky) return risky;
		if (PLAIN.has(command)) {
			r.skip(/[ \t0-9]/);
			continue;
		}
		if (LABELLED.has(command)) {
			r.toEndOfCommand();
			continue;
		}
		if (TEXT.has(command)) {
			// Text to end of line; a backslash before the newline continues it.
			while (!r.done && r.peek() !== "\n") r.i += r.peek() === "\\" ? 2 : 1;
			continue;
		}
		if (command === "s" || command === "y") {
			const delim = script[r.i++];
			if (delim === undefined || delim === "\n" || delim === "\\") return `its ${command} command does not parse`;
			if (!r.delimited(delim) || !r.delimited(delim)) return `its ${command} command does not parse`;
			if (command === "y") continue;
			while (!r.done && !/[;\n}\s]/.test(r.peek())) {
				const flag = script[r.i++]!;
				if (flag === "e") return "its s command's e flag runs the result as a shell command";
				if (flag === "w") return "its s command's w flag writes a file";
				if (!S_FLAGS.test(flag)) return `its s command has an unknown flag ${flag}`;
			}
			continue;
		}
		return command === "" ? "it ends inside a command" : `it uses the command ${JSON.stringify(command)}, which this check does not know`;
	}
}
