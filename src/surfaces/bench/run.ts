/**
 * `npm run bench`: the same command as `warden eval bench`, without loading the rest of the CLI.
 * Usage: node dist/surfaces/bench/run.js [--json] [--only <name>[,<name>]] [--dir <temp dir>]
 */
import { Command } from "commander";
import { watchReader } from "../cli/stdout-pipe.js";
import { registerBenchCommand } from "./bench-command.js";

// A reader that goes away (`| head`) ends the bench quietly; otherwise the process ends once stdout has drained.
watchReader(process.stdout);

const program = new Command().name("run.js");
registerBenchCommand(program, (text) => process.stdout.write(text));

program.parseAsync(["bench", ...process.argv.slice(2)], { from: "user" }).catch((error: unknown) => {
	process.stderr.write(`warden bench: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}\n`);
	process.exitCode = 1;
});
