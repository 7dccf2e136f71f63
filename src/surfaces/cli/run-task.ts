/** What `warden run` does once its flags are parsed: one session, one turn, the audit verdict. */
import { needsSandbox } from "../../kernel/admission/modes.js";
import type { PermissionMode } from "../../kernel/admission/types.js";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { Runtime } from "../../runtime/runtime.js";
import { shellSandbox } from "../../runtime/session-policy.js";
import type { SessionOptions } from "../../runtime/session-options.js";
import { askTimeoutMs, elsewhereHost } from "./ask-hosts.js";
import { EXIT, UsageError } from "./cli-error.js";
import { shownEvent } from "./render-event.js";
import type { RunFlags } from "./run-command.js";
import { resumeFromFlags, sessionOptionsFromFlags, withoutConfig } from "./session-options.js";
import { shownLines } from "./shown-lines.js";
import { onReaderGone, readerGone } from "./stdout-pipe.js";

export async function runTask(task: string, flags: RunFlags, out: (text: string) => void): Promise<number> {
	const print = (event: AnyWardenEvent) => {
		if (flags.json) out(`${JSON.stringify(event)}\n`);
		else {
			const line = shownEvent(event);
			if (line !== undefined) out(`${line}\n`);
		}
	};
	// --on-ask prompt: asks are put to the person at the terminal (src/surfaces/tui/terminal-asker.ts);
	// --on-ask console: they wait for another surface (src/surfaces/cli/ask-hosts.ts). Either way any surface may answer.
	const timeoutMs = askTimeoutMs(flags.askTimeout, flags.onAsk);
	let runtime: Runtime | undefined;
	// Asks come only from the session, once the runtime is open: its redactor masks what the prompt shows (fails closed before).
	const answering = await promptingHost(flags, <T>(value: T): T => {
		if (!runtime) throw new Error("no runtime to redact the ask with");
		return runtime.redact(value);
	});
	if (answering) flags = { ...flags, onAsk: undefined };
	const host = answering || timeoutMs !== undefined ? { ...answering, ...(timeoutMs !== undefined ? { askTimeoutMs: timeoutMs } : {}) } : undefined;
	// A new session's flags are checked before the state dir is opened; a resumed one needs its row first.
	const fresh = flags.resume === undefined ? await sessionOptionsFromFlags(flags, print) : undefined;
	runtime = await Runtime.open(flags.stateDir ? { stateDir: flags.stateDir } : {});
	const controller = new AbortController();
	const onSignal = () => controller.abort(new Error("interrupted"));
	process.once("SIGINT", onSignal);
	process.once("SIGTERM", onSignal);
	// Whoever read the events went away: the run stops as if interrupted, its evidence settled.
	const offReaderGone = onReaderGone(() => controller.abort(new Error("the reader of standard output went away")));
	try {
		const session = fresh ? await runtime.openSession({ ...withoutConfig(fresh), ...host }) : await resumeFromFlags(runtime, flags, print, flags.resume as string, host);
		await warnWithoutSandbox(session.mode, flags.sandbox === "required");
		const result = await session.send(task, { signal: controller.signal });
		await session.end(result.status === "completed" ? "ok" : "error");
		// A reader that went away is not news to report: the run stopped because of it.
		if (result.status !== "completed" && !readerGone()) process.stderr.write(shownLines([`warden: ${result.error ?? `turn ended with status ${result.status}`}`]));
		if (!flags.json) {
			const verdict = await runtime.verifyAudit();
			out(
				shownLines([
					verdict.ok ? `audit: ${verdict.checked} records in ${runtime.stateDir}, hash chain valid` : `audit: CHAIN BROKEN at record ${verdict.firstBad.seq}: ${verdict.firstBad.reason}`,
				]),
			);
		}
		return result.status === "completed" ? EXIT.ok : EXIT.failed;
	} finally {
		process.off("SIGINT", onSignal);
		process.off("SIGTERM", onSignal);
		offReaderGone();
		await runtime.close();
	}
}

/** The terminal's answering callbacks for --on-ask prompt; refused without a terminal to ask on. */
async function promptingHost(flags: RunFlags, redact: <T>(value: T) => T): Promise<Pick<SessionOptions, "confirm" | "release" | "askUser" | "elicit"> | undefined> {
	if (flags.onAsk === "console") return elsewhereHost();
	if (flags.onAsk !== "prompt") return undefined;
	if (!process.stdin.isTTY) throw new UsageError("--on-ask prompt needs a terminal on standard input; use deny or allow in automation");
	const { terminalAsker } = await import("../tui/terminal-asker.js");
	return terminalAsker(redact);
}

/** Said once per run, before anything is asked: without a sandbox, every shell command is asked about. */
async function warnWithoutSandbox(mode: PermissionMode, required: boolean): Promise<void> {
	if (!needsSandbox(mode, required)) return;
	const sandbox = await shellSandbox();
	if (!sandbox.available) process.stderr.write(shownLines([`warden: no sandbox here (${sandbox.reason}); every shell command will be asked about`]));
}
