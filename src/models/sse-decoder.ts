/**
 * Incremental server-sent-events decoder: feed it text as it arrives, get back the `data` payload of
 * every event completed so far. Only `data` matters for chat completions; other fields and comments
 * are skipped.
 */
export class SseDecoder {
	private buffer = "";
	private data: string[] = [];

	push(text: string): string[] {
		this.buffer += text;
		const events: string[] = [];
		// A trailing "\r" may be the first half of a "\r\n" split across chunks; wait for the rest.
		const cut = this.buffer.endsWith("\r") ? this.buffer.length - 1 : this.buffer.length;
		const lines = this.buffer.slice(0, cut).split(/\r\n|\r|\n/);
		this.buffer = (lines.pop() ?? "") + this.buffer.slice(cut);
		for (const line of lines) this.takeLine(line, events);
		return events;
	}

	/** Ends the stream; an event the server did not close with a blank line is still delivered. */
	finish(): string[] {
		const events: string[] = [];
		if (this.buffer !== "") this.takeLine(this.buffer.replace(/\r$/, ""), events);
		this.buffer = "";
		this.takeLine("", events);
		return events;
	}

	private takeLine(line: string, events: string[]): void {
		if (line === "") {
			if (this.data.length > 0) events.push(this.data.join("\n"));
			this.data = [];
			return;
		}
		if (line.startsWith(":")) return;
		const colon = line.indexOf(":");
		const field = colon === -1 ? line : line.slice(0, colon);
		if (field !== "data") return;
		const value = colon === -1 ? "" : line.slice(colon + 1);
		this.data.push(value.startsWith(" ") ? value.slice(1) : value);
	}
}
