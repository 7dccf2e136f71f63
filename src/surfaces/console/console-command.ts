/** `warden console`: the operator's web page over one state dir, on loopback, behind a token. */
import type { Command } from "commander";
import { UsageError } from "../cli/cli-error.js";

interface ConsoleFlags {
	port?: string;
	stateDir?: string;
	host?: string;
}

function port(value: string | undefined): number {
	if (value === undefined) return 0;
	const n = Number(value);
	if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535, got "${value}"`);
	return n;
}

export function registerConsoleCommand(program: Command, out: (text: string) => void): void {
	program
		.command("console")
		.description("serve the operator console (live feed, approvals, audit, explain, task runs) on 127.0.0.1 and print its URL with a one-time token")
		.option("--port <n>", "the port to listen on (default: a free one)")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--host <addr>", "listen on another address than 127.0.0.1 (prints a warning: others on that network can reach it)")
		.action(async (flags: ConsoleFlags) => {
			const chosen = port(flags.port);
			if (flags.host !== undefined && flags.host.trim() === "") throw new UsageError("--host must name an address");
			// Loaded only when this command runs, so `warden --version` never loads the server.
			const [{ startConsole }, { openAskQueue }, { resolveStateDir }] = await Promise.all([
				import("./console-server.js"),
				import("../../runtime/asks/ask-queue.js"),
				import("../../store/state-dir.js"),
			]);
			const stateDir = resolveStateDir(flags.stateDir, process.env);
			// The durable asks of this state dir: answering one takes this process's lease, no recovery.
			const asks = openAskQueue(stateDir);
			const running = await startConsole({ stateDir, port: chosen, ...(flags.host === undefined ? {} : { host: flags.host }), asks }).catch(async (error: unknown) => {
				await asks.close();
				throw error;
			});
			if (running.warning !== undefined) process.stderr.write(`${running.warning}\n`);
			out(`warden console: ${running.url}\n`);
			await new Promise<void>((resolve) => {
				const stop = () => resolve();
				process.once("SIGINT", stop);
				process.once("SIGTERM", stop);
			});
			await running.close();
			await asks.close();
		});
}
