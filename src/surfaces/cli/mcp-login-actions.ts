/** What `warden mcp login|logout` does (declared in mcp-command.ts): the authorization URL is printed for the person to open. */
import { McpApprovalError } from "../../runtime/mcp/mcp-approvals.js";
import { loginMcpServer, logoutMcpServer } from "../../runtime/mcp/mcp-login.js";
import { resolveStateDir } from "../../store/state-dir.js";
import { resolveCliConfig } from "./cli-config.js";
import { UsageError } from "./cli-error.js";
import type { McpCliFlags } from "./mcp-command.js";
import { shownLines } from "./shown-lines.js";

async function configured(flags: McpCliFlags) {
	const config = await resolveCliConfig({ workspace: flags.workspace, projectConfig: flags.projectConfig, allow: [], ask: [], deny: [], ...(flags.config ? { config: flags.config } : {}) }, process.env);
	return { servers: config.mcpServers ?? [], stateDir: resolveStateDir(flags.stateDir, process.env) };
}

function usage(err: unknown): never {
	if (err instanceof McpApprovalError) throw new UsageError(err.message);
	throw err;
}

export async function loginAction(server: string, flags: McpCliFlags, out: (text: string) => void, say: (text: string) => void): Promise<void> {
	const { servers, stateDir } = await configured(flags);
	const result = await loginMcpServer({
		stateDir,
		servers,
		server,
		authorize: async (url) => say(`Open this URL to authorize Warden at ${server} (waiting for the browser to come back to 127.0.0.1):\n${url.href}\n`),
	}).catch(usage);
	out(shownLines([result === "already_authorized" ? `${server}: already authorized` : `${server}: authorized; tokens stored in ${stateDir}/mcp-oauth (mode 0600)`]));
}

export async function logoutAction(server: string, flags: McpCliFlags, out: (text: string) => void): Promise<void> {
	const { servers, stateDir } = await configured(flags);
	let forgot: boolean;
	try {
		forgot = logoutMcpServer({ stateDir, servers, server });
	} catch (err) {
		usage(err);
	}
	out(shownLines([forgot ? `${server}: stored tokens removed` : `${server}: nothing was stored`]));
}
