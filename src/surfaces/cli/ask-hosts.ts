/**
 * `warden run --on-ask console`: this process shows no prompt and answers nothing itself; each ask
 * (an MCP server's request for input too)
 * waits, as a durable row, for an answer from another surface (the console, `warden asks answer`)
 * until --ask-timeout runs out, and is then expired and the call refused.
 */
import { visibleText } from "../../kernel/display/visible-text.js";
import type { SessionOptions } from "../../runtime/session-options.js";
import { UsageError } from "./cli-error.js";
import { shownLines } from "./shown-lines.js";

export const DEFAULT_CONSOLE_ASK_TIMEOUT_S = 300;

/** --ask-timeout in ms; with --on-ask console the default applies, otherwise none. */
export function askTimeoutMs(flag: string | undefined, onAsk: string | undefined): number | undefined {
	if (flag === undefined) return onAsk === "console" ? DEFAULT_CONSOLE_ASK_TIMEOUT_S * 1000 : undefined;
	const seconds = Number(flag);
	if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`--ask-timeout must be a positive number of seconds, got "${flag}"`);
	return Math.ceil(seconds * 1000);
}

/** Resolves only when the ask is settled elsewhere (or the turn ends): the board then stops waiting on it. */
function waitElsewhere<T>(refusal: T, signal: AbortSignal): Promise<T> {
	return new Promise((resolve) => {
		if (signal.aborted) return resolve(refusal);
		signal.addEventListener("abort", () => resolve(refusal), { once: true });
	});
}

export function elsewhereHost(notice: (line: string) => void = (l) => process.stderr.write(l)): Pick<SessionOptions, "confirm" | "release" | "elicit"> {
	return {
		confirm: (request, signal) => {
			// The request is the call unredacted: its resource is left to `warden asks list`, which shows it masked like the evidence.
			notice(shownLines([`warden: ${request.tool} (call ${request.callId}) waits for an answer from the console or \`warden asks answer\` (warden asks list shows it)`]));
			return waitElsewhere(false, signal);
		},
		release: (request, signal) => {
			notice(shownLines([`warden: a release to ${request.sink} (call ${request.call_id ?? request.id}) waits for an answer from the console or \`warden asks answer\``]));
			return waitElsewhere(false, signal);
		},
		elicit: (request, signal) => {
			notice(`warden: MCP server ${visibleText(request.server)} asks for input; it waits for an answer from the console or \`warden asks answer\`\n`);
			return waitElsewhere({ action: "cancel" as const }, signal);
		},
	};
}
