/**
 * Drives `warden acp` (bin/warden.js over the built dist) as a child process with the ACP SDK's
 * own client over the child's stdio, recording every update and permission request it receives.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import {
	type ClientCapabilities,
	type ClientConnection,
	type CreateElicitationRequest,
	type CreateElicitationResponse,
	client,
	ndJsonStream,
	type RequestPermissionRequest,
	type RequestPermissionResponse,
	type SessionNotification,
} from "@agentclientprotocol/sdk";
import { BIN, CONFIG_HOME, STATE_HOME } from "./cli-harness.js";

export type PermissionAnswer = (request: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse>;

export interface AcpChild {
	connection: ClientConnection;
	updates: SessionNotification[];
	permissions: RequestPermissionRequest[];
	/** The client's fs calls, in order: `read <path>` / `write <path>`. */
	fsCalls: string[];
	/** The terminals the client was asked to create, with what it ran. */
	terminals: ClientTerminal[];
	/** Resolves once an update matching `test` has arrived (including one that already has). */
	waitForUpdate(test: (n: SessionNotification) => boolean): Promise<SessionNotification>;
	/** Closes stdin and waits for the process to exit. */
	close(): Promise<{ code: number | null; stderr: string }>;
}

/** A terminal the test client ran: the command and args it was given, its env, and the methods called on it. */
export interface ClientTerminal {
	command: string;
	args: string[];
	env: Record<string, string>;
	cwd: string | null | undefined;
	calls: string[];
}

export interface AcpChildOptions {
	answer?: PermissionAnswer;
	/** The client's unsaved buffers by absolute path; given, the client offers fs read and write. */
	buffers?: Map<string, string>;
	/**
	 * Given, the client offers terminals: it runs what terminal/create names, with its own
	 * environment plus these variables and what the request gives (as an editor would).
	 */
	terminalEnv?: Record<string, string>;
	/** Given, the client answers elicitation/create with it (offer the capability at initialize too). */
	elicit?: (request: CreateElicitationRequest) => Promise<CreateElicitationResponse>;
}

export function startAcp(args: string[], options: AcpChildOptions = {}): AcpChild {
	const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, "acp", ...args], {
		env: { ...process.env, WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: CONFIG_HOME, XDG_STATE_HOME: STATE_HOME },
		stdio: ["pipe", "pipe", "pipe"],
	});
	let stderr = "";
	child.stderr.on("data", (d: Buffer) => {
		stderr += d.toString();
	});
	const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
	const updates: SessionNotification[] = [];
	const permissions: RequestPermissionRequest[] = [];
	const fsCalls: string[] = [];
	const waiters: { test: (n: SessionNotification) => boolean; resolve: (n: SessionNotification) => void }[] = [];
	const answer: PermissionAnswer = options.answer ?? (async () => ({ outcome: { outcome: "cancelled" } }));
	let app = client({ name: "warden-e2e" })
		.onNotification("session/update", ({ params }) => {
			updates.push(params);
			for (const waiter of [...waiters]) {
				if (waiter.test(params)) {
					waiters.splice(waiters.indexOf(waiter), 1);
					waiter.resolve(params);
				}
			}
		})
		.onRequest("session/request_permission", ({ params, signal }) => {
			permissions.push(params);
			return answer(params, signal);
		});
	const elicit = options.elicit;
	if (elicit) app = app.onRequest("elicitation/create", ({ params }) => elicit(params));
	const buffers = options.buffers;
	if (buffers) {
		app = app
			.onRequest("fs/read_text_file", ({ params }) => {
				fsCalls.push(`read ${params.path}`);
				const text = buffers.get(params.path);
				if (text === undefined) throw new Error(`no buffer for ${params.path}`);
				return { content: text };
			})
			.onRequest("fs/write_text_file", ({ params }) => {
				fsCalls.push(`write ${params.path}`);
				buffers.set(params.path, params.content);
				return {};
			});
	}
	const terminals: ClientTerminal[] = [];
	const terminalEnv = options.terminalEnv;
	if (terminalEnv) {
		const running = new Map<string, { process: ChildProcessWithoutNullStreams; output: string; exit: Promise<{ exitCode: number | null; signal: string | null }>; record: ClientTerminal }>();
		const get = (id: string) => {
			const t = running.get(id);
			if (!t) throw new Error(`no terminal ${id}`);
			return t;
		};
		app = app
			.onRequest("terminal/create", ({ params }) => {
				const env = Object.fromEntries((params.env ?? []).map((v) => [v.name, v.value]));
				const record: ClientTerminal = { command: params.command, args: params.args ?? [], env, cwd: params.cwd, calls: ["create"] };
				terminals.push(record);
				const proc = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env: { ...process.env, ...terminalEnv, ...env }, stdio: ["pipe", "pipe", "pipe"] });
				const id = `term-${terminals.length}`;
				const entry = { process: proc, output: "", record, exit: new Promise<{ exitCode: number | null; signal: string | null }>((resolve) => proc.on("close", (exitCode, signal) => resolve({ exitCode, signal }))) };
				proc.stdout.on("data", (d: Buffer) => {
					entry.output += d.toString();
				});
				proc.stderr.on("data", (d: Buffer) => {
					entry.output += d.toString();
				});
				running.set(id, entry);
				return { terminalId: id };
			})
			.onRequest("terminal/wait_for_exit", async ({ params }) => {
				const t = get(params.terminalId);
				t.record.calls.push("wait_for_exit");
				return await t.exit;
			})
			.onRequest("terminal/output", ({ params }) => {
				const t = get(params.terminalId);
				t.record.calls.push("output");
				return { output: t.output, truncated: false };
			})
			.onRequest("terminal/kill", ({ params }) => {
				const t = get(params.terminalId);
				t.record.calls.push("kill");
				t.process.kill("SIGKILL");
				return {};
			})
			.onRequest("terminal/release", ({ params }) => {
				const t = get(params.terminalId);
				t.record.calls.push("release");
				running.delete(params.terminalId);
				return {};
			});
	}
	const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
	return {
		connection,
		updates,
		permissions,
		fsCalls,
		terminals,
		waitForUpdate(test) {
			const seen = updates.find(test);
			if (seen) return Promise.resolve(seen);
			return new Promise((resolve) => waiters.push({ test, resolve }));
		},
		async close() {
			child.stdin.end();
			const code = await exited;
			connection.close();
			return { code, stderr };
		},
	};
}

export const FS_CAPABILITIES: ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true } };

/** `initialize` as an editor sends it. */
export function initialize(child: AcpChild, clientCapabilities: ClientCapabilities = {}) {
	return child.connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities, clientInfo: { name: "warden-e2e", version: "1" } });
}

/** The text of every agent message chunk, joined. */
export function agentText(updates: readonly SessionNotification[]): string {
	return updates
		.map((n) => (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text" ? n.update.content.text : ""))
		.join("");
}

/** Each update of a tool call, in order. */
export function callUpdates(updates: readonly SessionNotification[], toolCallId: string) {
	return updates.map((n) => n.update).filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === toolCallId);
}

/** The option an answer picks. */
export function pick(optionId: string): RequestPermissionResponse {
	return { outcome: { outcome: "selected", optionId } };
}
