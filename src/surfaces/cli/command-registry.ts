/**
 * Which module declares each top-level command, as data, so `warden <command>` loads the
 * declarations of that one command and nothing else: the other sixteen modules, and what their
 * option parsers import, are never read. A help listing (or anything else that is not one known
 * command) loads them all, so what commander prints and suggests is the same as with every command
 * declared up front.
 */
import type { Command } from "commander";

export type Out = (text: string) => void;
export type RegisterCommands = (program: Command, out: Out) => void;

export interface CommandModule {
	/** The top-level commands the module declares, in the order it declares them. */
	names: readonly string[];
	load(): Promise<RegisterCommands>;
}

/** In the order `warden --help` lists them. */
export const COMMAND_MODULES: readonly CommandModule[] = [
	{ names: ["run"], load: async () => (await import("./run-command.js")).registerRunCommand },
	{ names: ["runs"], load: async () => (await import("./runs-command.js")).registerRunsCommand },
	{ names: ["audit", "sessions"], load: async () => (await import("./evidence-commands.js")).registerEvidenceCommands },
	{ names: ["explain"], load: async () => (await import("./explain-command.js")).registerExplainCommand },
	{ names: ["policy"], load: async () => (await import("./policy-command.js")).registerPolicyCommand },
	{ names: ["mcp"], load: async () => (await import("./mcp-command.js")).registerMcpCommand },
	{ names: ["memory"], load: async () => (await import("./memory-command.js")).registerMemoryCommand },
	{ names: ["replay"], load: async () => (await import("./replay-command.js")).registerReplayCommand },
	{ names: ["recover"], load: async () => (await import("./recover-command.js")).registerRecoverCommand },
	{ names: ["asks"], load: async () => (await import("./asks-command.js")).registerAsksCommand },
	{ names: ["undo"], load: async () => (await import("./undo-command.js")).registerUndoCommand },
	{ names: ["skills"], load: async () => (await import("./skills-command.js")).registerSkillsCommand },
	{ names: ["acp"], load: async () => (await import("../acp/acp-command.js")).registerAcpCommand },
	{
		names: ["eval"],
		load: async () => {
			const [evaluation, bench] = await Promise.all([import("../eval/eval-command.js"), import("../bench/bench-command.js")]);
			return (program, out) => bench.registerBenchCommand(evaluation.registerEvalCommands(program, out), out);
		},
	},
	{ names: ["chat"], load: async () => (await import("../tui/chat-command.js")).registerChatCommand },
	{ names: ["console"], load: async () => (await import("../console/console-command.js")).registerConsoleCommand },
];

/** The command commander runs when the arguments name none (chat-command.ts declares it so). */
const DEFAULT_COMMAND = "chat";
/** The program's own options that answer without any command. */
const VERSION_FLAGS = new Set(["-V", "--version"]);

/**
 * The modules `argv` needs. Only where the choice cannot change what commander does: the first
 * argument names a command (commander dispatches on it before any sibling matters), there are no
 * arguments (the default command), or the one argument asks for the version (no command at all).
 */
export function modulesFor(argv: readonly string[]): readonly CommandModule[] {
	const first = argv[0];
	if (first === undefined) return COMMAND_MODULES.filter((m) => m.names.includes(DEFAULT_COMMAND));
	if (argv.length === 1 && VERSION_FLAGS.has(first)) return [];
	const named = COMMAND_MODULES.find((m) => m.names.includes(first));
	return named ? [named] : COMMAND_MODULES;
}
