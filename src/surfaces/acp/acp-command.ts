/** `warden acp`: Warden as an Agent Client Protocol agent on stdio, for editors such as Zed. */
import type { Command } from "commander";
import { type SessionCliFlags, sessionFlags } from "../cli/run-command.js";

export function registerAcpCommand(program: Command): void {
	sessionFlags(
		program
			.command("acp")
			.description(
				"serve the Agent Client Protocol on stdin/stdout: an editor opens governed sessions (the workspace is session/new's cwd; asks go to the editor, so --workspace and --on-ask do not apply)",
			),
	).action(async (flags: SessionCliFlags) => {
		// Loaded only when this command runs, so the CLI starts without the runtime or the SDK.
		const { serveAcp } = await import("./acp-serve.js");
		process.exitCode = await serveAcp(flags);
	});
}
