/**
 * `warden asks`: a second surface for the asks of a state dir. `list` shows every ask still
 * waiting (what a terminal prompt shows: tool, resource, arguments, reason, diff, the rule
 * "always" would keep; for an MCP server's request for input, its message and fields); `answer`
 * gives one of them its one answer, recorded as answered by `cli` — a request for input is
 * declined, cancelled, or accepted with `--content '<json>'` (checked against the server's schema).
 */
import type { Command } from "commander";
import type { AskAnswer, ElicitAction, ElicitReply, PendingAsk } from "../../runtime/asks/ask-types.js";
import { EXIT, UsageError } from "./cli-error.js";
import { elicitationLines } from "./elicitation-lines.js";
import { contentLines, shownLines } from "./shown-lines.js";

interface AsksFlags {
	json?: boolean;
	stateDir?: string;
	content?: string;
}

const ANSWERS = ["allow_once", "allow_always", "deny", "deny_always"] as const;
const ELICIT_ANSWERS: readonly ElicitAction[] = ["accept", "decline", "cancel"];

/** The reply an elicitation answer and its --content make, or the one line saying what is wrong. */
function elicitReply(answer: ElicitAction, content: string | undefined): ElicitReply {
	if (answer !== "accept") {
		if (content !== undefined) throw new UsageError(`--content goes with accept only, not ${answer}`);
		return { action: answer };
	}
	if (content === undefined) throw new UsageError("accept needs --content '<json object of the fields>' (or answer it in the console or at the terminal)");
	let parsed: unknown;
	try {
		parsed = JSON.parse(content);
	} catch {
		throw new UsageError("--content is not valid JSON");
	}
	if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new UsageError("--content must be a JSON object of the fields asked for");
	return { action: "accept", content: parsed as Record<string, unknown> };
}

export function registerAsksCommand(program: Command, out: (text: string) => void): void {
	const asks = program.command("asks").description("asks that sessions in any process wait on: list them, answer one");
	asks
		.command("list")
		.description("every ask still waiting for an answer, oldest first")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--json", "the asks as one JSON array")
		.action(async (flags: AsksFlags) => {
			const { openAskQueue } = await import("../../runtime/asks/ask-queue.js");
			const queue = openAskQueue(flags.stateDir, { readOnly: true });
			try {
				const pending = queue.pending();
				out(flags.json ? `${JSON.stringify(pending)}\n` : renderAsks(pending));
			} finally {
				await queue.close();
			}
		});
	asks
		.command("answer")
		.description("answer one ask, exactly once (refused when it was answered already or has expired)")
		.argument("<id>", "the ask's id, as `warden asks list` shows it")
		.argument("<answer>", `${ANSWERS.join(" | ")}; for a request for input: ${ELICIT_ANSWERS.join(" | ")}`)
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--content <json>", "with accept: the fields of a request for input, as one JSON object")
		.action(async (id: string, answer: string, flags: AsksFlags) => {
			const elicit = (ELICIT_ANSWERS as readonly string[]).includes(answer);
			if (!elicit && !(ANSWERS as readonly string[]).includes(answer)) throw new UsageError(`the answer must be ${[...ANSWERS, ...ELICIT_ANSWERS].join(", ")}, got "${answer}"`);
			if (!elicit && flags.content !== undefined) throw new UsageError("--content goes with accept (a request for input) only");
			const reply = elicit ? elicitReply(answer as ElicitAction, flags.content) : undefined;
			const { openAskQueue } = await import("../../runtime/asks/ask-queue.js");
			const queue = openAskQueue(flags.stateDir);
			try {
				const result = reply ? queue.reply(id, reply, "cli") : queue.answer(id, answer as AskAnswer, "cli");
				if (result.ok) {
					out(shownLines([`answered ${id}: ${answer} (by cli)`]));
					process.exitCode = EXIT.ok;
				} else {
					process.stderr.write(shownLines([`warden: ${result.error}`]));
					process.exitCode = EXIT.failed;
				}
			} finally {
				await queue.close();
			}
		});
}

/** The argument that is what runs or is touched, shown whole on a line of its own; the rest is in `arguments`. */
const SUBJECTS = ["command", "path", "url"] as const;

/**
 * The asks as a person reads them. The subject of a call (the command that runs, the path written)
 * is shown whole, spelled by the display rule, so decoding what is shown gives back exactly what
 * the decision read; the arguments follow as JSON.
 */
export function renderAsks(asks: readonly PendingAsk[]): string {
	if (asks.length === 0) return shownLines(["no asks waiting"]);
	const lines: string[] = [];
	for (const a of asks) {
		if (a.elicitation) {
			lines.push(...elicitationLines(a, a.elicitation));
			continue;
		}
		lines.push(`${a.id}  ${a.kind} ${a.tool} ${a.resource}  (session ${a.session}, call ${a.call_id}${a.expires_at ? `, expires ${a.expires_at}` : ""})`);
		lines.push(`  why: ${a.reason}`);
		const args = (a.arguments ?? {}) as Record<string, unknown>;
		for (const key of SUBJECTS) if (typeof args[key] === "string") lines.push(`  ${key}: ${args[key]}`);
		lines.push(`  arguments: ${JSON.stringify(a.arguments)}`);
		if (a.release) lines.push(`  release: payload sha256 ${a.release.digest} to ${a.release.sink} (labels ${a.release.labels.join(", ")})`);
		if (a.always_rule) lines.push(`  always would keep: ${a.always_rule}`);
		if (a.diff) lines.push(...contentLines(a.diff.trimEnd()).map((l) => `  ${l}`));
	}
	lines.push(`${asks.length} ask(s) waiting; answer one with: warden asks answer <id> ${ANSWERS.join("|")}`);
	if (asks.some((a) => a.elicitation)) lines.push(`a request for input: warden asks answer <id> ${ELICIT_ANSWERS.join("|")} (accept with --content '<json>')`);
	return shownLines(lines);
}
