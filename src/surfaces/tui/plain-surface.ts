/**
 * `warden --plain`: the chat as plain lines, for screen readers and logs. Events print as
 * `warden run` prints them, asks as a few lines and a question, and input is read a line at a time.
 * Every line goes out through the display rule (display-line.ts): what the model, a tool or a file
 * wrote is spelled, never interpreted, so it cannot retitle the terminal or swallow the next line.
 */
import { createInterface } from "node:readline";
import type { AnyWardenEvent } from "../../kernel/evidence/event-types.js";
import { renderEvent } from "../cli/render-event.js";
import { askKeys, askLines, VIEW_KEY } from "./card-lines.js";
import type { ChatFlags } from "./chat-command.js";
import { runLine } from "./chat-commands.js";
import type { ChatController } from "./chat-controller.js";
import type { PendingAsk } from "./chat-state.js";
import { ARM_AFTER_MS } from "./arm-delay.js";
import { displayField, displayLine, displayText } from "./display-line.js";
import { statusText } from "./status-text.js";

export async function runPlain(chat: ChatController, flags: ChatFlags, out: (text: string) => void): Promise<void> {
	const rl = createInterface({ input: process.stdin, terminal: false });
	let shown: PendingAsk | undefined;
	let printedEntries = 0;
	const off = chat.onRawEvent((event: AnyWardenEvent) => {
		const line = renderEvent(event);
		if (line !== undefined) out(`${displayText(line)}\n`);
	});
	const offOutput = chat.onOutput((event) => {
		for (const line of event.payload.lines) out(`  | ${displayLine(line)}\n`);
	});
	const offView = chat.subscribe(() => {
		const view = chat.view();
		// Notices (command answers) print once each, as they are added.
		const entries = view.entries;
		if (entries.length < printedEntries) printedEntries = 0;
		for (const e of entries.slice(printedEntries)) if (e.kind === "notice") out(`${displayText(e.text)}\n`);
		printedEntries = entries.length;
		if (view.ask === shown) return;
		shown = view.ask;
		if (!shown) return;
		const ask = shown;
		out(`${askLines(ask).map((l) => l.text).join("\n")}\n`);
		// A line typed before the question was printed is not its answer: the keys are offered once it is armed.
		setTimeout(() => {
			if (chat.asking !== ask) return;
			chat.arm(ask);
			out(`${askKeys(ask, false)}\nanswer> `);
		}, ARM_AFTER_MS);
	});
	const prompt = () => out(`${displayField(statusText(chat.view().status))}\n> `);
	prompt();
	// Lines are handled as they come, not one turn at a time: the answer to an ask arrives while its turn runs.
	const done = new Promise<void>((resolve) => {
		rl.on("close", resolve);
		rl.on("line", (line) => {
			const ask = chat.asking;
			if (ask) {
				if (ask.kind !== "question" && line.trim().toLowerCase() === VIEW_KEY) {
					out(`${askLines(ask, true).map((l) => l.text).join("\n")}\n${askKeys(ask, true)}\nanswer> `);
					return;
				}
				const answered = ask.kind === "question" ? chat.answer(line) : chat.answer(line.trim().slice(0, 1), line.trim() === "");
				if (!answered) out("not an answer; answer> ");
				return;
			}
			void runLine(chat, line, flags).then((r) => {
				if (r === "exit") rl.close();
				else if (!chat.running) prompt();
			});
		});
	});
	try {
		await done;
	} finally {
		off();
		offOutput();
		offView();
		rl.close();
	}
}
