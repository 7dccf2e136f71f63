/**
 * Authorizing Warden at a remote MCP server (`warden mcp login`): a loopback redirect is opened on
 * 127.0.0.1, the SDK's client auth discovers the authorization server, registers (or uses the
 * configured client id), and builds the authorization URL with a PKCE challenge and a fresh state;
 * the person is handed the URL, the browser comes back with a code, the code is exchanged with the
 * verifier, and a second connection proves the stored token works. Nothing here is recorded as
 * evidence: the tokens exist only in the state dir's file.
 */
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpAuthRequiredError, McpOAuthProvider, startLoopbackRedirect, storedRedirectPort } from "./mcp-oauth.js";
import { McpConnectError, type McpHttpTransportSpec } from "./mcp-types.js";

export interface McpOAuthLoginOptions {
	server: string;
	transport: McpHttpTransportSpec;
	/** The server's file in the state dir (oauthFile). */
	file: string;
	/** Hands the authorization URL to the person (print it, open a browser). */
	authorize: (url: URL) => Promise<void>;
	/** How long to wait for the browser to come back (default 5 minutes). */
	timeoutMs?: number;
}

export type McpOAuthLoginResult = "authorized" | "already_authorized";

const CLIENT_INFO = { name: "warden", version: "1" };

async function connects(url: URL, spec: McpHttpTransportSpec, provider: McpOAuthProvider): Promise<void> {
	const client = new Client(CLIENT_INFO);
	try {
		await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...spec.headers } }, authProvider: provider }));
	} finally {
		await client.close().catch(() => undefined);
	}
}

export async function mcpOAuthLogin(opts: McpOAuthLoginOptions): Promise<McpOAuthLoginResult> {
	const { server, transport: spec, file } = opts;
	if (!spec.oauth) throw new McpConnectError(`MCP server ${server} is not configured for OAuth (add "oauth": true to its entry)`);
	const url = new URL(spec.url);
	const loopback = await startLoopbackRedirect(storedRedirectPort(file, url.href));
	try {
		const provider = new McpOAuthProvider({ server, url: url.href, file, spec: spec.oauth, redirectUri: loopback.redirectUri, authorize: opts.authorize });
		// Listening before the first request: the browser may come back before connect gives up.
		const code = loopback.code(() => provider.expectedState, opts.timeoutMs ?? 300_000);
		code.catch(() => undefined);
		const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...spec.headers } }, authProvider: provider });
		const client = new Client(CLIENT_INFO);
		try {
			await client.connect(transport);
			return "already_authorized";
		} catch (err) {
			if (!(err instanceof UnauthorizedError)) throw new McpConnectError(`MCP server ${server}: ${err instanceof Error ? err.message : String(err)}`);
		} finally {
			await client.close().catch(() => undefined);
		}
		await transport.finishAuth(await code);
		try {
			await connects(url, spec, new McpOAuthProvider({ server, url: url.href, file, spec: spec.oauth }));
		} catch (err) {
			throw new McpAuthRequiredError(`MCP server ${server} still refuses Warden after authorizing: ${err instanceof Error ? err.message : String(err)}`);
		}
		return "authorized";
	} finally {
		await loopback.close();
	}
}
