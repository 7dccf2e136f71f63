/**
 * OAuth 2.1 with PKCE for a remote MCP server, through the SDK's client auth: an
 * OAuthClientProvider whose client registration and tokens live in one file of the state dir
 * (`mcp-oauth/<server>-<hash>.json`, mode 0600 in a 0700 directory), never in the store, events or
 * audit. Authorizing is a step a person takes (`warden mcp login <server>`): the authorization URL
 * is handed to them, the browser comes back to a loopback redirect on 127.0.0.1 (the code is taken
 * only with the state it was sent with), and the code is exchanged with the PKCE verifier. A session
 * only uses and refreshes what was stored; when the server wants a new authorization it fails
 * closed, naming the command, rather than open a browser mid-session.
 */
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/** What a server's config says about OAuth. */
export interface McpOAuthSpec {
	/** Scopes to ask for (space-separated), when the server's metadata does not say. */
	scope?: string;
	/** A client id registered out of band; without it the client registers dynamically. */
	clientId?: string;
}

/** The server needs a person to authorize Warden again; the message names the command. */
export class McpAuthRequiredError extends Error {
	override name = "McpAuthRequiredError";
}

interface StoredAuth {
	server: string;
	url: string;
	redirect_uri?: string;
	client?: OAuthClientInformationMixed;
	tokens?: OAuthTokens;
}

/** The file a server's OAuth state is kept in: per server name and URL, so a changed URL starts over. */
export function oauthFile(stateDir: string, server: string, url: string): string {
	const hash = createHash("sha256").update(`${server}\n${url}`).digest("hex").slice(0, 16);
	return join(stateDir, "mcp-oauth", `${server.replace(/[^A-Za-z0-9_-]/g, "_")}-${hash}.json`);
}

function readStored(file: string, server: string, url: string): StoredAuth {
	if (!existsSync(file)) return { server, url };
	try {
		const data = JSON.parse(readFileSync(file, "utf8")) as StoredAuth;
		return data.url === url ? data : { server, url };
	} catch {
		// An unreadable file holds nothing usable: authorize again.
		return { server, url };
	}
}

function writeStored(file: string, data: StoredAuth): void {
	const dir = join(file, "..");
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	chmodSync(dir, 0o700);
	const temp = `${file}.${process.pid}.tmp`;
	writeFileSync(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
	chmodSync(temp, 0o600);
	renameSync(temp, file);
}

/** Whether a server has tokens stored (a session does not start one without). */
export function hasStoredTokens(file: string, url: string): boolean {
	const stored = readStored(file, "", url);
	return stored.tokens !== undefined;
}

/** Forgets a server's tokens and registration (`warden mcp logout`); true when there was something. */
export function forgetStoredAuth(file: string): boolean {
	if (!existsSync(file)) return false;
	rmSync(file, { force: true });
	return true;
}

export interface McpOAuthProviderOptions {
	server: string;
	url: string;
	file: string;
	spec: McpOAuthSpec;
	/** The loopback redirect URI (`http://127.0.0.1:<port>/callback`); a session uses the stored one. */
	redirectUri?: string;
	/** Hands the authorization URL to a person; absent (a session), authorizing fails closed. */
	authorize?: (url: URL) => Promise<void>;
}

export class McpOAuthProvider implements OAuthClientProvider {
	private verifier: string | undefined;
	private sentState: string | undefined;

	constructor(private readonly opts: McpOAuthProviderOptions) {}

	private load(): StoredAuth {
		return readStored(this.opts.file, this.opts.server, this.opts.url);
	}

	private save(change: Partial<StoredAuth>): void {
		writeStored(this.opts.file, { ...this.load(), server: this.opts.server, url: this.opts.url, ...change });
	}

	get redirectUrl(): string {
		return this.opts.redirectUri ?? this.load().redirect_uri ?? "http://127.0.0.1/callback";
	}

	get clientMetadata(): OAuthClientMetadata {
		return {
			client_name: "Warden",
			redirect_uris: [this.redirectUrl],
			grant_types: ["authorization_code", "refresh_token"],
			response_types: ["code"],
			token_endpoint_auth_method: "none",
			...(this.opts.spec.scope ? { scope: this.opts.spec.scope } : {}),
		};
	}

	state(): string {
		this.sentState = randomBytes(16).toString("base64url");
		return this.sentState;
	}

	/** The state sent with the last authorization request: the callback must bring it back. */
	get expectedState(): string | undefined {
		return this.sentState;
	}

	clientInformation(): OAuthClientInformationMixed | undefined {
		if (this.opts.spec.clientId) return { client_id: this.opts.spec.clientId };
		const stored = this.load();
		// A registration made for another redirect URI does not fit this one: register again.
		return stored.redirect_uri === this.redirectUrl ? stored.client : undefined;
	}

	saveClientInformation(client: OAuthClientInformationMixed): void {
		this.save({ client, redirect_uri: this.redirectUrl });
	}

	tokens(): OAuthTokens | undefined {
		return this.load().tokens;
	}

	saveTokens(tokens: OAuthTokens): void {
		this.save({ tokens, redirect_uri: this.redirectUrl });
	}

	async redirectToAuthorization(url: URL): Promise<void> {
		if (!this.opts.authorize) throw new McpAuthRequiredError(`MCP server ${this.opts.server} needs OAuth authorization: run \`warden mcp login ${this.opts.server}\``);
		await this.opts.authorize(url);
	}

	saveCodeVerifier(verifier: string): void {
		this.verifier = verifier;
	}

	codeVerifier(): string {
		if (!this.verifier) throw new McpAuthRequiredError(`MCP server ${this.opts.server}: no authorization is in progress`);
		return this.verifier;
	}

	invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
		if (scope === "verifier") this.verifier = undefined;
		else if (scope === "tokens") this.save({ tokens: undefined });
		else if (scope === "client") this.save({ client: undefined });
		else if (scope === "all") this.save({ client: undefined, tokens: undefined });
	}
}

/** A one-shot loopback listener for the authorization redirect. */
export interface LoopbackRedirect {
	redirectUri: string;
	/** The code of the first callback that brings `state`; rejects on an error answer or after `timeoutMs`. */
	code(state: () => string | undefined, timeoutMs: number): Promise<string>;
	close(): Promise<void>;
}

const PAGE = (text: string) => `<!doctype html><meta charset="utf-8"><title>Warden</title><p>${text}</p>`;

/** Listens on 127.0.0.1 (the port given, or any free one when it is taken or absent). */
export async function startLoopbackRedirect(port = 0): Promise<LoopbackRedirect> {
	let deliver: ((result: { code?: string; error?: string; state?: string }) => void) | undefined;
	const server: Server = createServer((req, res) => {
		const url = new URL(req.url ?? "/", "http://127.0.0.1");
		if (url.pathname !== "/callback") {
			res.writeHead(404).end();
			return;
		}
		const code = url.searchParams.get("code") ?? undefined;
		const error = url.searchParams.get("error") ?? undefined;
		const state = url.searchParams.get("state") ?? undefined;
		res.writeHead(code ? 200 : 400, { "content-type": "text/html; charset=utf-8" }).end(PAGE(code ? "Warden is authorized. You can close this window." : `Authorization failed: ${error ?? "no code"}.`));
		deliver?.({ ...(code ? { code } : {}), ...(error ? { error } : {}), ...(state ? { state } : {}) });
	});
	const listen = (p: number) =>
		new Promise<void>((resolve, reject) => {
			server.once("error", reject);
			server.listen(p, "127.0.0.1", () => {
				server.off("error", reject);
				resolve();
			});
		});
	try {
		await listen(port);
	} catch (err) {
		if (port === 0 || (err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
		await listen(0);
	}
	const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
	return {
		redirectUri,
		code: (state, timeoutMs) =>
			new Promise<string>((resolve, reject) => {
				const timer = setTimeout(() => reject(new McpAuthRequiredError(`no authorization came back to ${redirectUri} within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
				deliver = (result) => {
					if (result.error || !result.code) {
						clearTimeout(timer);
						reject(new McpAuthRequiredError(`the authorization server answered ${result.error ?? "without a code"}`));
						return;
					}
					// A callback without the state we sent is not our authorization (a forged redirect): ignored.
					if (result.state !== state()) return;
					clearTimeout(timer);
					resolve(result.code);
				};
			}),
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** The port of a stored redirect URI, so a login reuses the registration made for it. */
export function storedRedirectPort(file: string, url: string): number {
	const uri = readStored(file, "", url).redirect_uri;
	const port = uri ? Number(new URL(uri).port) : 0;
	return Number.isInteger(port) ? port : 0;
}
