/**
 * `warden --plain`: the chat as plain lines, for screen readers and logs. Events print as
 * `warden run` prints them, asks as a few lines and a question, and input is read a line at a time.
 */
import { createInterface } from "node:readline";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { renderEvent } from "../cli/render-event.js";
import { askLines } from "./card-lines.js";
import type { ChatFlags } from "./chat-command.js";
import { runLine } from "./chat-commands.js";
import type { ChatController } from "./chat-controller.js";
import type { PendingAsk } from "./chat-state.js";
import { ARM_AFTER_MS } from "./arm-delay.js";
import { statusText } from "./status-text.js";

export async function runPlain(chat: ChatController, flags: ChatFlags, out: (text: string) => void): Promise<void> {
	const rl = createInterface({ input: process.stdin, terminal: false });
	let shown: PendingAsk | undefined;
	let printedEntries = 0;
	const off = chat.onRawEvent((event: AnyWardenEvent) => {
		const line = renderEvent(event);
		if (line !== undefined) out(`${line}\n`);
	});
	const offView = chat.subscribe(() => {
		const view = chat.view();
		// Notices (command answers) print once each, as they are added.
		const entries = view.entries;
		if (entries.length < printedEntries) printedEntries = 0;
		for (const e of entries.slice(printedEntries)) if (e.kind === "notice") out(`${e.text}\n`);
		printedEntries = entries.length;
		if (view.ask !== shown) {
			shown = view.ask;
			if (shown) {
				out(`${askLines(shown).map((l) => l.text).join("\n")}\n${shown.kind === "question" ? "answer> " : "answer> "}`);
				// A line typed before the question was printed is not its answer.
				const ask = shown;
				setTimeout(() => chat.arm(ask), ARM_AFTER_MS);
			}
		}
	});
	out(`${statusText(chat.view().status)}\n> `);
	try {
		for await (const line of rl) {
			if (chat.asking) {
				const ask = chat.asking;
				if (!chat.answer(ask.kind === "question" ? line : line.trim().slice(0, 1), line.trim() === "" && ask.kind !== "question")) out("answer> ");
				continue;
			}
			const r = await runLine(chat, line, flags);
			if (r === "exit") break;
			out(`${statusText(chat.view().status)}\n> `);
		}
	} finally {
		off();
		offView();
		rl.close();
	}
}
