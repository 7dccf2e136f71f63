/**
 * `warden asks`: a second surface for the asks of a state dir. `list` shows every ask still
 * waiting (what a terminal prompt shows: tool, resource, arguments, reason, diff, the rule
 * "always" would keep); `answer` gives one of them its one answer, recorded as answered by `cli`.
 */
import type { Command } from "commander";
import type { AskAnswer, PendingAsk } from "../../runtime/asks/ask-types.js";
import { EXIT, UsageError } from "./cli-error.js";

interface AsksFlags {
	json?: boolean;
	stateDir?: string;
}

const ANSWERS = ["allow_once", "allow_always", "deny", "deny_always"] as const;

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
		.argument("<answer>", ANSWERS.join(" | "))
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.action(async (id: string, answer: string, flags: AsksFlags) => {
			if (!(ANSWERS as readonly string[]).includes(answer)) throw new UsageError(`the answer must be ${ANSWERS.join(", ")}, got "${answer}"`);
			const { openAskQueue } = await import("../../runtime/asks/ask-queue.js");
			const queue = openAskQueue(flags.stateDir);
			try {
				const result = queue.answer(id, answer as AskAnswer, "cli");
				if (result.ok) {
					out(`answered ${id}: ${answer} (by cli)\n`);
					process.exitCode = EXIT.ok;
				} else {
					process.stderr.write(`warden: ${result.error}\n`);
					process.exitCode = EXIT.failed;
				}
			} finally {
				await queue.close();
			}
		});
}

export function renderAsks(asks: readonly PendingAsk[]): string {
	if (asks.length === 0) return "no asks waiting\n";
	const lines: string[] = [];
	for (const a of asks) {
		lines.push(`${a.id}  ${a.kind} ${a.tool} ${a.resource}  (session ${a.session}, call ${a.call_id}${a.expires_at ? `, expires ${a.expires_at}` : ""})`);
		lines.push(`  why: ${a.reason}`);
		lines.push(`  arguments: ${JSON.stringify(a.arguments)}`);
		if (a.release) lines.push(`  release: payload sha256 ${a.release.digest} to ${a.release.sink} (labels ${a.release.labels.join(", ")})`);
		if (a.always_rule) lines.push(`  always would keep: ${a.always_rule}`);
		if (a.diff) lines.push(...a.diff.trimEnd().split("\n").map((l) => `  ${l}`));
	}
	lines.push(`${asks.length} ask(s) waiting; answer one with: warden asks answer <id> ${ANSWERS.join("|")}`);
	return `${lines.join("\n")}\n`;
}
