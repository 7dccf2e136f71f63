/**
 * The client's terminals as Warden's EditorTerminals, when the client offers `terminal`: the kernel
 * hands over a command already wrapped in its bubblewrap sandbox, which runs in a terminal the
 * editor shows with the tool call (`terminal/create`, embedded in the call's content), is waited
 * for, killed on timeout or cancel, read (`terminal/output`, capped by the call's output limit), and
 * released. What ran and how it ended is the kernel's record as for any command.
 */
import type { CreateTerminalResponse, TerminalOutputResponse, WaitForTerminalExitResponse } from "@agentclientprotocol/sdk";
import type { EditorTerminals } from "../../providers/editor-terminal-provider.js";
import type { ShellRunResult } from "../../providers/shell-provider.js";
import type { AcpConnectionState, AcpSession } from "./acp-session.js";

export function clientTerminals(acp: () => AcpSession | undefined, connection: AcpConnectionState): EditorTerminals | undefined {
	if (connection.capabilities.terminal !== true) return undefined;
	const client = connection.client;
	return {
		name: "acp-client",
		async run(req): Promise<ShellRunResult> {
			const session = acp();
			if (!session) throw new Error("the ACP session is not open yet");
			const sessionId = session.id;
			const started = Date.now();
			const env = Object.entries(req.env).flatMap(([name, value]) => (value === undefined ? [] : [{ name, value }]));
			const { terminalId } = (await client.request("terminal/create", { sessionId, command: req.program, args: [...req.args], env, cwd: req.cwd, outputByteLimit: req.maxOutputBytes })) as CreateTerminalResponse;
			await session.showTerminal(req.callId, terminalId);
			let timedOut = false;
			let cancelled = false;
			const kill = () => client.request("terminal/kill", { sessionId, terminalId }).catch(() => undefined);
			const timer = setTimeout(() => {
				timedOut = true;
				void kill();
			}, req.timeoutMs);
			const onAbort = () => {
				cancelled = true;
				void kill();
			};
			req.signal.addEventListener("abort", onAbort, { once: true });
			try {
				const exit = (await client.request("terminal/wait_for_exit", { sessionId, terminalId })) as WaitForTerminalExitResponse;
				const out = (await client.request("terminal/output", { sessionId, terminalId })) as TerminalOutputResponse;
				return {
					exitCode: exit.exitCode ?? null,
					signal: exit.signal ?? null,
					stdout: out.output,
					stderr: "",
					truncated: out.truncated,
					timedOut,
					cancelled,
					durationMs: Date.now() - started,
				};
			} finally {
				clearTimeout(timer);
				req.signal.removeEventListener("abort", onAbort);
				await client.request("terminal/release", { sessionId, terminalId }).catch(() => undefined);
			}
		},
	};
}
