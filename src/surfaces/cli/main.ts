/** The `warden` command: a thin client of the embedding API. */
import { Command, CommanderError } from "commander";
import { EXIT, reportError } from "./cli-error.js";
import { COMMAND_MODULES, type CommandModule, modulesFor } from "./command-registry.js";

/**
 * The command tree with the given command modules declared (every one unless told), in
 * COMMAND_MODULES' order; `main` declares only what its arguments need.
 */
export async function buildProgram(out: (text: string) => void, modules: readonly CommandModule[] = COMMAND_MODULES): Promise<Command> {
	const program = new Command()
		.name("warden")
		.description("A governed, local-first runtime for tool-using LLM agents: the model proposes, the host decides.")
		.version("0.1.0")
		.exitOverride()
		.configureOutput({ writeOut: (s) => out(s), writeErr: (s) => process.stderr.write(s) })
		.showSuggestionAfterError(true);
	const registers = await Promise.all(modules.map((m) => m.load()));
	for (const register of registers) register(program, out);
	return program;
}

export async function main(argv: readonly string[], out: (text: string) => void = (t) => process.stdout.write(t)): Promise<number> {
	try {
		const program = await buildProgram(out, modulesFor(argv));
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
