/**
 * `warden acp`'s agent: the ACP methods Warden implements, over one connection. It advertises
 * what it does (session/load, text and embedded text resources in prompts) and nothing more:
 * no images or audio, no MCP servers from the client, no authentication (models are configured
 * on the host). A client that offers terminals runs the commands Warden confines with bubblewrap,
 * handed over already wrapped (src/surfaces/acp/client-terminals.ts); every other command runs in
 * Warden's own shell provider (src/providers/shell-provider.ts).
 */
import { agent, type AgentApp, type ClientCapabilities, type McpServer, PROTOCOL_VERSION, RequestError } from "@agentclientprotocol/sdk";
import { DirectoryProbeError, realDirectory } from "../../providers/directory-probe.js";
import { createModel } from "../../models/model-spec.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { SessionCliFlags } from "../cli/run-command.js";
import { sessionOptionsFromFlags, withoutConfig } from "../cli/session-options.js";
import { shownLines } from "../cli/shown-lines.js";
import { type AcpConnectionState, AcpSession, type BaseOptions, type SessionPlan } from "./acp-session.js";
import { streamingModel } from "./streaming-model.js";

export const AGENT_INFO = { name: "warden", title: "Warden", version: "0.1.0" };

/**
 * The options and model of a session in `workspace` (a real directory); `storedModel` is the spec
 * a loaded session ran with. The CLI resolves them from its flags and the layered config.
 */
export type SessionSource = (workspace: string, mcpServers: readonly McpServer[], storedModel?: string) => Promise<SessionPlan>;

export interface AcpAgent {
	app: AgentApp;
	/** Ends every session the agent opened (cancelling running turns); for when the connection is gone. */
	endAll(): Promise<void>;
}

export function buildAcpAgent(runtime: Runtime, source: SessionSource): AcpAgent {
	const sessions = new Map<string, AcpSession>();
	let capabilities: ClientCapabilities = {};
	const session = (id: string): AcpSession => {
		const found = sessions.get(id);
		if (!found) throw new RequestError(-32002, `unknown session ${id}: open it with session/new or session/load first`);
		return found;
	};

	const app = agent({ name: "warden" })
		.onRequest("initialize", ({ params }) => {
			capabilities = params.clientCapabilities ?? {};
			return {
				protocolVersion: PROTOCOL_VERSION,
				agentCapabilities: {
					loadSession: true,
					promptCapabilities: { image: false, audio: false, embeddedContext: true },
					mcpCapabilities: { http: false, sse: false },
				},
				agentInfo: AGENT_INFO,
				authMethods: [],
			};
		})
		.onRequest("session/new", async ({ params, client }) => {
			const workspace = await workspaceOf(params.cwd);
			const plan = await source(workspace, params.mcpServers);
			const connection: AcpConnectionState = { runtime, client, capabilities };
			const opened = await asRequestError(() => AcpSession.open(connection, workspace, plan));
			sessions.set(opened.id, opened);
			// After the response: the client knows the session id before any update names it.
			setImmediate(() => opened.announceCommands());
			return { sessionId: opened.id, modes: opened.modes() };
		})
		.onRequest("session/load", async ({ params, client }) => {
			if (sessions.has(params.sessionId)) throw new RequestError(-32600, `session ${params.sessionId} is already open on this connection`);
			const row = await runtime.getSession(params.sessionId);
			if (!row) throw new RequestError(-32002, `unknown session ${params.sessionId}`);
			if (row.parent_session) throw new RequestError(-32602, `session ${params.sessionId} is a sub-agent of session ${row.parent_session}: load that session instead`);
			const workspace = await workspaceOf(params.cwd);
			if (workspace !== row.workspace) throw new RequestError(-32602, `session ${params.sessionId} works in ${row.workspace}, not ${workspace}`);
			const plan = await source(workspace, params.mcpServers, row.model);
			const connection: AcpConnectionState = { runtime, client, capabilities };
			const loaded = await asRequestError(() => AcpSession.load(connection, params.sessionId, workspace, plan));
			sessions.set(loaded.id, loaded);
			setImmediate(() => loaded.announceCommands());
			return { modes: loaded.modes() };
		})
		.onRequest("session/prompt", ({ params }) => session(params.sessionId).prompt(params.prompt))
		.onRequest("session/set_mode", async ({ params }) => {
			await session(params.sessionId).setMode(params.modeId);
			return {};
		})
		.onNotification("session/cancel", ({ params }) => {
			sessions.get(params.sessionId)?.cancel();
		});
	return {
		app,
		async endAll() {
			for (const session of [...sessions.values()]) await session.close();
			sessions.clear();
		},
	};
}

/** session/new's cwd: an absolute path to a directory that exists, as its real path. */
async function workspaceOf(cwd: string): Promise<string> {
	if (!cwd.startsWith("/")) throw new RequestError(-32602, `cwd must be an absolute path, got "${cwd}"`);
	try {
		return await realDirectory(cwd, "workspace");
	} catch (err) {
		if (err instanceof DirectoryProbeError) throw new RequestError(-32602, err.message);
		throw err;
	}
}

/**
 * The flags and the layered config for this workspace, as `warden run` resolves them; the model
 * from --model or the config, else (for a stored session) the one it ran with.
 */
export function cliSessionSource(flags: SessionCliFlags): SessionSource {
	return (workspace, mcpServers, storedModel) => sessionBase(flags, workspace, mcpServers, storedModel);
}

async function sessionBase(flags: SessionCliFlags, workspace: string, mcpServers: readonly McpServer[], storedModel?: string): Promise<SessionPlan> {
	const resolved = await asRequestError(() => sessionOptionsFromFlags({ ...flags, workspace }, () => undefined));
	const { workspace: _workspace, model: _model, confirm: _confirm, onEvent: _onEvent, ...rest } = withoutConfig(resolved);
	const chosen = resolved.config.model?.value ?? storedModel;
	if (!chosen) throw new RequestError(-32602, "no model: start `warden acp` with --model <spec>, or set model in the Warden config");
	const model = streamingModel(await asRequestError(() => createModel(chosen, process.env)));
	// Servers the editor offers are not connected: said once, and recorded with the session's start.
	const notes = mcpServers.map((server) => ({ item: `MCP server ${server.name}`, source: "ACP client (session/new)", why: "Warden does not connect to MCP servers an ACP client supplies" }));
	// The editor names the server: its name is written to the log as the CLI writes a line.
	for (const note of notes) process.stderr.write(shownLines([`warden: warning: ignored ${note.item} from ${note.source}: ${note.why}`]));
	const base: BaseOptions = { ...rest, ...(notes.length > 0 ? { configNotes: [...(rest.configNotes ?? []), ...notes] } : {}) };
	const named = resolved.config.mode.source !== "default";
	// The mode of a stored session is its own unless a flag or config layer names one.
	if (storedModel !== undefined && !named) delete base.mode;
	return { base, model, ...(named ? { modeCap: resolved.config.mode.value } : {}) };
}

/** Errors that mean the request (its cwd, the flags, the config, the model spec) is wrong, not Warden. */
const BAD_REQUEST_ERRORS = new Set(["ConfigError", "UsageError", "RuntimeConfigError", "ModelError", "DirectoryProbeError"]);

/** A one-line error from the runtime or the config becomes the request's error, not a crash of the connection. */
async function asRequestError<T>(fn: () => Promise<T>): Promise<T> {
	try {
		return await fn();
	} catch (err) {
		if (err instanceof RequestError) throw err;
		const line = err instanceof Error ? (err.message.split("\n")[0] ?? err.message) : String(err);
		throw new RequestError(err instanceof Error && BAD_REQUEST_ERRORS.has(err.name) ? -32602 : -32603, line);
	}
}
