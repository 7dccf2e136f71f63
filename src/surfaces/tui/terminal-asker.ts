/**
 * `warden run --on-ask prompt`: a single task that asks on the terminal (approvals, releases,
 * ask_user, and an MCP server's request for input as one question per field). Each ask is written to
 * standard error (standard output stays the run's, --json included) and answered by one key read
 * raw from standard input, armed only after the ask is written: keys typed earlier are dropped.
 * What is written is what the evidence holds (redacted by the run's redactor) spelled by the display
 * rule (card-lines.ts), so text in the ask cannot retitle the terminal or swallow the prompt line;
 * `v` writes the ask's long fields whole.
 */
import type { ReleaseRequest } from "../../kernel/flow/flow-types.js";
import { elicitByQuestions } from "../../runtime/mcp/elicit-questions.js";
import type { ConfirmationRequest, SessionOptions } from "../../runtime/session-options.js";
import { APPROVAL_KEYS, keyName, YES_NO_KEYS } from "./ask-keys.js";
import { ARM_AFTER_MS } from "./arm-delay.js";
import { askKeys, askLines, VIEW_KEY } from "./card-lines.js";
import type { PendingAsk } from "./chat-state.js";

export interface TerminalIo {
	input: NodeJS.ReadStream;
	output: NodeJS.WriteStream;
}

/** Masks what the evidence masks (Runtime.redact). */
export type Redact = <T>(value: T) => T;

/** Reads keys until `accept` takes one; keys that arrive before the ask is armed are dropped; `v` calls `view`. */
function readKey<T>(io: TerminalIo, accept: (key: string) => T | undefined, signal: AbortSignal, view: () => void): Promise<T | undefined> {
	return new Promise((resolve) => {
		let armed = false;
		const wasRaw = io.input.isRaw;
		io.input.setRawMode?.(true);
		io.input.resume();
		const finish = (value: T | undefined) => {
			clearTimeout(timer);
			io.input.off("data", onData);
			signal.removeEventListener("abort", onAbort);
			io.input.setRawMode?.(wasRaw);
			io.input.pause();
			resolve(value);
		};
		const onData = (data: Buffer) => {
			if (!armed) return;
			const text = data.toString("utf8");
			// Ctrl-C at an ask refuses it; the run's own SIGINT handling is not reachable in raw mode.
			if (text === "\u0003") {
				finish(undefined);
				process.kill(process.pid, "SIGINT");
				return;
			}
			const key = keyName(text, text === "\u001b");
			if (key === VIEW_KEY) {
				view();
				io.output.write(`${ASK_PROMPT} `);
				return;
			}
			const value = accept(key);
			if (value !== undefined) finish(value);
		};
		const onAbort = () => finish(undefined);
		const timer = setTimeout(() => {
			armed = true;
			io.output.write(`${ASK_PROMPT} `);
		}, ARM_AFTER_MS);
		signal.addEventListener("abort", onAbort, { once: true });
		io.input.on("data", onData);
	});
}

const ASK_PROMPT = "answer>";

function show(io: TerminalIo, ask: PendingAsk, full = false): void {
	io.output.write(`\n${askLines(ask, full).map((l) => l.text).join("\n")}\n  ${askKeys(ask, full)}\n`);
}

/** Reads a line (cooked) for ask_user. */
function readLine(io: TerminalIo, signal: AbortSignal): Promise<string | undefined> {
	return new Promise((resolve) => {
		let text = "";
		io.input.setEncoding("utf8");
		io.input.resume();
		const finish = (value: string | undefined) => {
			io.input.off("data", onData);
			signal.removeEventListener("abort", onAbort);
			io.input.pause();
			resolve(value);
		};
		const onData = (chunk: string) => {
			text += chunk;
			const end = text.indexOf("\n");
			if (end !== -1) finish(text.slice(0, end).replace(/\r$/, ""));
		};
		const onAbort = () => finish(undefined);
		signal.addEventListener("abort", onAbort, { once: true });
		io.input.on("data", onData);
		io.output.write(`${ASK_PROMPT} `);
	});
}

/** One question asked, redacted like the evidence, and its line read. */
async function questionAt(io: TerminalIo, redact: Redact, question: string, signal: AbortSignal): Promise<string | undefined> {
	show(io, { kind: "question", question: redact(question) });
	return readLine(io, signal);
}

/** The session's confirm, release, askUser and elicit callbacks, answered at the terminal. */
export function terminalAsker(redact: Redact, io: TerminalIo = { input: process.stdin, output: process.stderr }): Pick<SessionOptions, "confirm" | "release" | "askUser" | "elicit"> {
	// One ask at a time on one terminal: concurrent calls wait their turn.
	let queue: Promise<unknown> = Promise.resolve();
	const serial = <T>(run: () => Promise<T>): Promise<T> => {
		const next = queue.then(run, run);
		queue = next.catch(() => undefined);
		return next;
	};
	return {
		confirm: (request: ConfirmationRequest, signal: AbortSignal) =>
			serial(async () => {
				const ask: PendingAsk = { kind: "approval", request: redact(request) };
				show(io, ask);
				const kind = await readKey(io, (k) => APPROVAL_KEYS[k], signal, () => show(io, ask, true));
				// Stopped without a key: another surface answered first, or the turn ended.
				io.output.write(`${kind ?? (signal.aborted ? "no longer waiting (answered elsewhere or cancelled)" : "deny")}\n`);
				return { kind: kind ?? "deny", by: "terminal" };
			}),
		release: (request: ReleaseRequest, signal: AbortSignal) =>
			serial(async () => {
				const ask: PendingAsk = { kind: "release", request: redact(request) };
				show(io, ask);
				const yes = (await readKey(io, (k) => YES_NO_KEYS[k], signal, () => show(io, ask, true))) === true;
				io.output.write(`${yes ? "released" : signal.aborted ? "no longer waiting (answered elsewhere or cancelled)" : "kept"}\n`);
				return yes;
			}),
		askUser: (question: string, signal: AbortSignal) => serial(async () => (await questionAt(io, redact, question, signal)) ?? ""),
		// A server's request for input holds the terminal for all its questions.
		elicit: (request, signal) => serial(() => elicitByQuestions((question, s) => questionAt(io, redact, question, s))(request, signal)),
	};
}
