/**
 * An ACP client's terminals for eval tasks (`acp: { terminals: true }`): what `terminal/create`
 * names is spawned as an editor would spawn it, with the client's own environment under the
 * variables the request gives, and waited for, read, killed and released on request. Whatever the
 * agent hands over runs here with the client's authority, not Warden's: only the wrapper the
 * kernel built around the command stands between it and the machine.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { client } from "@agentclientprotocol/sdk";

type ClientApp = ReturnType<typeof client>;

interface Running {
	process: ChildProcess;
	output: string;
	exit: Promise<{ exitCode: number | null; signal: string | null }>;
}

export class ClientTerminals {
	private readonly running = new Map<string, Running>();
	private made = 0;

	private get(id: string): Running {
		const t = this.running.get(id);
		if (!t) throw new Error(`no terminal ${id}`);
		return t;
	}

	/** The client app with the terminal methods answered. */
	serve(app: ClientApp): ClientApp {
		return app
			.onRequest("terminal/create", ({ params }) => {
				const env = Object.fromEntries((params.env ?? []).map((v) => [v.name, v.value]));
				const proc = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
				const id = `term-${++this.made}`;
				const entry: Running = { process: proc, output: "", exit: new Promise((resolve) => proc.on("close", (exitCode, signal) => resolve({ exitCode, signal }))) };
				const keep = (d: Buffer) => {
					entry.output = (entry.output + d.toString()).slice(-(params.outputByteLimit ?? 1_000_000));
				};
				proc.stdout.on("data", keep);
				proc.stderr.on("data", keep);
				this.running.set(id, entry);
				return { terminalId: id };
			})
			.onRequest("terminal/wait_for_exit", ({ params }) => this.get(params.terminalId).exit)
			.onRequest("terminal/output", ({ params }) => ({ output: this.get(params.terminalId).output, truncated: false }))
			.onRequest("terminal/kill", ({ params }) => {
				this.get(params.terminalId).process.kill("SIGKILL");
				return {};
			})
			.onRequest("terminal/release", ({ params }) => {
				this.running.get(params.terminalId)?.process.kill("SIGKILL");
				this.running.delete(params.terminalId);
				return {};
			});
	}

	killAll(): void {
		for (const t of this.running.values()) t.process.kill("SIGKILL");
		this.running.clear();
	}
}
