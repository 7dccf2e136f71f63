/**
 * `warden` with no command: the interactive terminal, a chat in the workspace. Declared here with
 * the other commands; the screen, the runtime and Ink load only when the chat starts.
 */
import type { Command } from "commander";
import { type SessionCliFlags, sessionFlags } from "../cli/run-command.js";

export interface ChatFlags extends SessionCliFlags {
	resume?: string;
	plain?: boolean;
}

export function registerChatCommand(program: Command, out: (text: string) => void): void {
	sessionFlags(
		program
			.command("chat", { isDefault: true })
			.description("the interactive terminal (the default): a chat in the workspace that asks you before it acts")
			.option("--resume <session>", "continue this session (its workspace; its model unless --model)")
			.option("--plain", "plain lines instead of the screen, for screen readers and logs"),
	).action(async (flags: ChatFlags) => {
		// Loaded only when the chat starts, so the other commands start without Ink or the runtime.
		const { startChat } = await import("./chat-start.js");
		process.exitCode = await startChat(flags, out);
	});
}
