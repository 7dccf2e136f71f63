/** What `warden acp` does: serve the agent on stdin/stdout until the client closes the connection. */
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { Runtime } from "../../runtime/runtime.js";
import type { SessionCliFlags } from "../cli/run-command.js";
import { EXIT, UsageError } from "../cli/cli-error.js";
import { buildAcpAgent, cliSessionSource } from "./acp-agent.js";

export async function serveAcp(flags: SessionCliFlags): Promise<number> {
	// Checked before anything is opened: the editor shows this line from stderr.
	const modelTimeout = Number(flags.modelTimeout);
	if (!Number.isFinite(modelTimeout) || modelTimeout <= 0) throw new UsageError(`--model-timeout must be a positive number of seconds, got "${flags.modelTimeout}"`);
	const runtime = await Runtime.open(flags.stateDir ? { stateDir: flags.stateDir } : {});
	try {
		// stdout carries the protocol and nothing else; warnings go to stderr.
		const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
		const agent = buildAcpAgent(runtime, cliSessionSource(flags));
		const connection = agent.app.connect(stream);
		const stop = () => connection.close();
		process.once("SIGTERM", stop);
		process.once("SIGINT", stop);
		try {
			await connection.closed;
		} finally {
			process.off("SIGTERM", stop);
			process.off("SIGINT", stop);
			await agent.endAll();
		}
	} finally {
		// Running turns are cancelled and open sessions ended, so their evidence is complete.
		await runtime.close();
	}
	return EXIT.ok;
}
