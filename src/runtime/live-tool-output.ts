/**
 * A running shell command's output, handed to the host as it arrives: whole lines, redacted by the
 * session's redactor, a few at a time. Never stored: the command's whole output is recorded with
 * its call when it exits, as without a host listening. A terminal draws these as a card's live
 * tail; an ACP agent could send them as tool_call_update content.
 */
import type { Redactor } from "../kernel/flow/redaction-types.js";
import type { ShellOutputSink } from "../kernel/shell-output.js";

export type OutputStream = "stdout" | "stderr";

/** Lines one call's command wrote to one stream since the last such event. */
export interface ToolOutputEvent {
	kind: "tool.output";
	session: string;
	turn: number;
	time: string;
	payload: { call_id: string; tool: string; stream: OutputStream; lines: string[] };
}

export type ToolOutputListener = (event: ToolOutputEvent) => void;

export interface ToolOutputChannel {
	forCall(callId: string, tool: string): ShellOutputSink;
}

/** Lines wait this long for company, so 10,000 lines of output are a few hundred events, not 10,000. */
export const OUTPUT_FLUSH_MS = 30;
/**
 * A line without its end is held back, because redaction reads whole lines (a secret split across
 * two pieces would match neither); past this many characters it is shown as it is.
 */
export const HELD_LINE_CHARS = 4096;

export interface ToolOutputOptions {
	session: string;
	redactor: Redactor;
	turn(): number;
	deliver: ToolOutputListener;
}

export function toolOutputChannel(opts: ToolOutputOptions): ToolOutputChannel {
	return { forCall: (callId, tool) => new CallOutput(opts, callId, tool) };
}

class CallOutput implements ShellOutputSink {
	private readonly partial: Record<OutputStream, string> = { stdout: "", stderr: "" };
	private queued: { stream: OutputStream; line: string }[] = [];
	private timer: NodeJS.Timeout | undefined;

	constructor(
		private readonly opts: ToolOutputOptions,
		private readonly callId: string,
		private readonly tool: string,
	) {}

	write(stream: OutputStream, text: string): void {
		const pieces = (this.partial[stream] + text).split("\n");
		let rest = pieces.pop() ?? "";
		while (rest.length > HELD_LINE_CHARS) {
			pieces.push(rest.slice(0, HELD_LINE_CHARS));
			rest = rest.slice(HELD_LINE_CHARS);
		}
		this.partial[stream] = rest;
		for (const line of pieces) this.queued.push({ stream, line });
		if (this.queued.length > 0) this.timer ??= setTimeout(() => this.flush(), OUTPUT_FLUSH_MS);
	}

	end(): void {
		for (const stream of ["stdout", "stderr"] as const) {
			if (this.partial[stream] !== "") this.queued.push({ stream, line: this.partial[stream] });
			this.partial[stream] = "";
		}
		this.flush();
	}

	private flush(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		const queued = this.queued;
		this.queued = [];
		// One event per run of lines from the same stream, in the order they were written.
		let run: { stream: OutputStream; lines: string[] } | undefined;
		const send = () => {
			if (!run) return;
			const event: ToolOutputEvent = {
				kind: "tool.output",
				session: this.opts.session,
				turn: this.opts.turn(),
				time: new Date().toISOString(),
				payload: { call_id: this.callId, tool: this.tool, stream: run.stream, lines: run.lines.map((l) => this.opts.redactor.redactText(l)) },
			};
			try {
				this.opts.deliver(event);
			} catch {
				// A failing host callback must not fail the command it watches.
			}
		};
		for (const { stream, line } of queued) {
			if (run?.stream !== stream) {
				send();
				run = { stream, lines: [] };
			}
			run.lines.push(line);
		}
		send();
	}
}
