/**
 * A real OAuth 2.1 authorization server and a Streamable HTTP MCP server that requires its tokens,
 * both on 127.0.0.1, for the OAuth tests: metadata discovery (RFC 9728 protected-resource metadata,
 * RFC 8414 server metadata), dynamic client registration, an authorization endpoint that approves
 * at once (the person's consent, as a test has it) and redirects with the code and state, and a
 * token endpoint that checks the PKCE verifier against the S256 challenge and issues and refreshes
 * tokens. `expireAccess` makes every access token issued so far stop working (a refresh is due).
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { answerStateless } from "./mcp-servers.js";

export interface OAuthTestServers {
	/** The MCP endpoint. */
	mcpUrl: string;
	issuer: string;
	/** Every access token issued, in order. */
	issued: string[];
	/** Authorization headers the MCP server saw. */
	authorizations: (string | undefined)[];
	/** Token requests by grant type, in order. */
	grants: string[];
	/** Authorization requests' PKCE methods, in order. */
	challengeMethods: string[];
	expireAccess(): void;
	close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString("utf8");
}

async function listen(server: Server): Promise<string> {
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const token = () => randomBytes(24).toString("base64url");

export async function startOAuthServers(): Promise<OAuthTestServers> {
	const clients = new Map<string, { redirect_uris: string[] }>();
	const codes = new Map<string, { client: string; redirect: string; challenge: string }>();
	const refresh = new Map<string, string>();
	const valid = new Set<string>();
	const issued: string[] = [];
	const grants: string[] = [];
	const challengeMethods: string[] = [];
	const authorizations: (string | undefined)[] = [];
	const issue = (client: string) => {
		const access = token();
		const again = token();
		valid.add(access);
		issued.push(access);
		refresh.set(again, client);
		return { access_token: access, token_type: "Bearer", expires_in: 3600, refresh_token: again };
	};
	const json = (res: import("node:http").ServerResponse, status: number, data: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(data));

	let issuer = "";
	const as = createServer(async (req, res) => {
		const url = new URL(req.url ?? "/", issuer);
		if (url.pathname === "/.well-known/oauth-authorization-server") {
			json(res, 200, {
				issuer,
				authorization_endpoint: `${issuer}/authorize`,
				token_endpoint: `${issuer}/token`,
				registration_endpoint: `${issuer}/register`,
				response_types_supported: ["code"],
				grant_types_supported: ["authorization_code", "refresh_token"],
				code_challenge_methods_supported: ["S256"],
				token_endpoint_auth_methods_supported: ["none"],
			});
			return;
		}
		if (url.pathname === "/register" && req.method === "POST") {
			const meta = JSON.parse(await body(req)) as { redirect_uris: string[] };
			const id = `client-${clients.size + 1}`;
			clients.set(id, { redirect_uris: meta.redirect_uris });
			json(res, 201, { ...meta, client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000) });
			return;
		}
		if (url.pathname === "/authorize") {
			const q = url.searchParams;
			const client = clients.get(q.get("client_id") ?? "");
			const redirect = q.get("redirect_uri") ?? "";
			challengeMethods.push(q.get("code_challenge_method") ?? "");
			if (!client?.redirect_uris.includes(redirect) || q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) {
				json(res, 400, { error: "invalid_request" });
				return;
			}
			const code = token();
			codes.set(code, { client: q.get("client_id")!, redirect, challenge: q.get("code_challenge")! });
			const back = new URL(redirect);
			back.searchParams.set("code", code);
			if (q.get("state")) back.searchParams.set("state", q.get("state")!);
			res.writeHead(302, { location: back.href }).end();
			return;
		}
		if (url.pathname === "/token" && req.method === "POST") {
			const form = new URLSearchParams(await body(req));
			const grant = form.get("grant_type") ?? "";
			grants.push(grant);
			if (grant === "authorization_code") {
				const pending = codes.get(form.get("code") ?? "");
				codes.delete(form.get("code") ?? "");
				const verifier = form.get("code_verifier") ?? "";
				const challenge = createHash("sha256").update(verifier).digest("base64url");
				if (!pending || pending.client !== form.get("client_id") || pending.redirect !== form.get("redirect_uri") || pending.challenge !== challenge) {
					json(res, 400, { error: "invalid_grant" });
					return;
				}
				json(res, 200, issue(pending.client));
				return;
			}
			if (grant === "refresh_token") {
				const client = refresh.get(form.get("refresh_token") ?? "");
				if (!client) {
					json(res, 400, { error: "invalid_grant" });
					return;
				}
				refresh.delete(form.get("refresh_token")!);
				json(res, 200, issue(client));
				return;
			}
			json(res, 400, { error: "unsupported_grant_type" });
			return;
		}
		res.writeHead(404).end();
	});
	issuer = await listen(as);

	let origin = "";
	const mcp = createServer(async (req, res) => {
		const url = new URL(req.url ?? "/", origin);
		if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
			json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [issuer] });
			return;
		}
		authorizations.push(req.headers.authorization);
		const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
		if (!bearer || !valid.has(bearer)) {
			res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` }).end();
			return;
		}
		await answerStateless(req, res);
	});
	origin = await listen(mcp);

	return {
		mcpUrl: `${origin}/mcp`,
		issuer,
		issued,
		authorizations,
		grants,
		challengeMethods,
		expireAccess: () => valid.clear(),
		close: async () => {
			await Promise.all([as, mcp].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
		},
	};
}
