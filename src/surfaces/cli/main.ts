/** The `warden` command: a thin client of the embedding API. */
import { Command, CommanderError } from "commander";
import { registerAcpCommand } from "../acp/acp-command.js";
import { registerBenchCommand } from "../bench/bench-command.js";
import { registerChatCommand } from "../tui/chat-command.js";
import { registerConsoleCommand } from "../console/console-command.js";
import { registerEvalCommands } from "../eval/eval-command.js";
import { EXIT, reportError } from "./cli-error.js";
import { registerAsksCommand } from "./asks-command.js";
import { registerEvidenceCommands } from "./evidence-commands.js";
import { registerExplainCommand } from "./explain-command.js";
import { registerMcpCommand } from "./mcp-command.js";
import { registerMemoryCommand } from "./memory-command.js";
import { registerPolicyCommand } from "./policy-command.js";
import { registerReplayCommand } from "./replay-command.js";
import { registerRecoverCommand } from "./recover-command.js";
import { registerRunCommand } from "./run-command.js";
import { registerRunsCommand } from "./runs-command.js";
import { registerSkillsCommand } from "./skills-command.js";
import { registerUndoCommand } from "./undo-command.js";

/** The whole command tree, with every command registered; `main` parses with it. */
export function buildProgram(out: (text: string) => void): Command {
	const program = new Command()
		.name("warden")
		.description("A governed, local-first runtime for tool-using LLM agents: the model proposes, the host decides.")
		.version("0.1.0")
		.exitOverride()
		.configureOutput({ writeOut: (s) => out(s), writeErr: (s) => process.stderr.write(s) })
		.showSuggestionAfterError(true);
	registerRunCommand(program, out);
	registerRunsCommand(program, out);
	registerEvidenceCommands(program, out);
	registerExplainCommand(program, out);
	registerPolicyCommand(program, out);
	registerMcpCommand(program, out);
	registerMemoryCommand(program, out);
	registerReplayCommand(program, out);
	registerRecoverCommand(program, out);
	registerAsksCommand(program, out);
	registerUndoCommand(program, out);
	registerSkillsCommand(program, out);
	registerAcpCommand(program);
	registerBenchCommand(registerEvalCommands(program, out), out);
	registerChatCommand(program, out);
	registerConsoleCommand(program, out);
	return program;
}

export async function main(argv: readonly string[], out: (text: string) => void = (t) => process.stdout.write(t)): Promise<number> {
	const program = buildProgram(out);
	try {
		process.exitCode = undefined;
		await program.parseAsync(argv as string[], { from: "user" });
		return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
	} catch (err) {
		if (err instanceof CommanderError) {
			// Commander has already printed its own one-line message.
			return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
		}
		return reportError(err);
	}
}
