/**
 * `warden mcp login|logout <server>` outside a session: authorize Warden at a remote server that is
 * configured with `oauth` (src/providers/mcp/mcp-oauth-login.ts) or forget what was stored for it.
 * Neither writes evidence: the tokens exist only in the state dir's file, and an audit record
 * would be one more place for them to leak from.
 */
import { forgetStoredAuth, oauthFile } from "../../providers/mcp/mcp-oauth.js";
import { mcpOAuthLogin, type McpOAuthLoginResult } from "../../providers/mcp/mcp-oauth-login.js";
import type { McpHttpTransportSpec } from "../../providers/mcp/mcp-types.js";
import { McpApprovalError } from "./mcp-approvals.js";
import type { McpServerConfig } from "./mcp-server-config.js";

export interface McpLoginRequest {
	stateDir: string;
	servers: readonly McpServerConfig[];
	server: string;
	/** Hands the authorization URL to the person. */
	authorize: (url: URL) => Promise<void>;
	timeoutMs?: number;
}

function oauthServer(servers: readonly McpServerConfig[], name: string): McpHttpTransportSpec {
	const config = servers.find((s) => s.name === name);
	if (!config) throw new McpApprovalError(`no MCP server ${JSON.stringify(name)} is configured (configured: ${servers.map((s) => s.name).join(", ") || "none"})`);
	if (config.transport.type === "stdio" || !config.transport.oauth) throw new McpApprovalError(`MCP server ${name} is not configured for OAuth (give its entry a url and "oauth": true)`);
	return config.transport;
}

export async function loginMcpServer(req: McpLoginRequest): Promise<McpOAuthLoginResult> {
	const transport = oauthServer(req.servers, req.server);
	return mcpOAuthLogin({ server: req.server, transport, file: oauthFile(req.stateDir, req.server, transport.url), authorize: req.authorize, ...(req.timeoutMs ? { timeoutMs: req.timeoutMs } : {}) });
}

/** True when something was stored and is now gone. */
export function logoutMcpServer(req: Omit<McpLoginRequest, "authorize" | "timeoutMs">): boolean {
	const transport = oauthServer(req.servers, req.server);
	return forgetStoredAuth(oauthFile(req.stateDir, req.server, transport.url));
}
