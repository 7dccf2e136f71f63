/**
 * The console page's own security: who may talk to it and from which page. A request passes, in
 * order: the Host check (a DNS-rebinding page reaches 127.0.0.1 under its own name), the Origin
 * check (another site's page posting to the console), and the token (exchanged once for an HttpOnly
 * SameSite=Strict cookie, so it never stays in the address bar, history or a Referer).
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";

/** The headers every answer carries: no inline script or style, no framing, nothing cached. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
	"Content-Security-Policy":
		"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"X-Frame-Options": "DENY",
	"Referrer-Policy": "no-referrer",
	"Cross-Origin-Opener-Policy": "same-origin",
	"Cross-Origin-Resource-Policy": "same-origin",
	"Cache-Control": "no-store",
};

/** Methods that change something: each needs an Origin of the console's own. */
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface ConsoleSecrets {
	/** Printed once in the URL; exchanged for the cookie. */
	token: string;
	/** The cookie's value: a second secret, so the printed token is never the one a browser keeps. */
	session: string;
}

export function newSecrets(): ConsoleSecrets {
	return { token: randomBytes(24).toString("base64url"), session: randomBytes(24).toString("base64url") };
}

export interface Binding {
	/** The address bound, as given (127.0.0.1 unless the operator chose another). */
	host: string;
	/** The port bound; known once the server listens. */
	port(): number;
}

/** The Host values the console answers to: its own address and port, and localhost's name for loopback. */
export function allowedHosts(binding: Binding): Set<string> {
	const port = binding.port();
	const names = [binding.host, ...(isLoopback(binding.host) ? ["127.0.0.1", "localhost", "[::1]"] : [])];
	return new Set(names.map((name) => `${name.includes(":") && !name.startsWith("[") ? `[${name}]` : name}:${port}`.toLowerCase()));
}

export function isLoopback(host: string): boolean {
	return host === "127.0.0.1" || host === "localhost" || host === "::1";
}

export function cookieName(binding: Binding): string {
	// Cookies are not kept apart by port: two consoles on one machine must not overwrite each other's.
	return `warden_console_${binding.port()}`;
}

function sameSecret(given: string, expected: string): boolean {
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

function refuse(c: Context, status: 401 | 403 | 421, error: string): Response {
	return c.json({ error }, status);
}

/** The middleware: Host, then Origin, then the token or the cookie. */
export function guard(binding: Binding, secrets: ConsoleSecrets): MiddlewareHandler {
	return async (c, next) => {
		const hosts = allowedHosts(binding);
		const host = (c.req.header("host") ?? "").toLowerCase();
		if (!hosts.has(host)) return refuse(c, 421, `host ${host === "" ? "(none)" : host} is not this console's address`);
		const origin = c.req.header("origin");
		const ownOrigins = new Set([...hosts].map((h) => `http://${h}`));
		if (origin !== undefined && !ownOrigins.has(origin.toLowerCase())) return refuse(c, 403, `origin ${origin} is not this console`);
		if (STATE_CHANGING.has(c.req.method)) {
			if (origin === undefined) return refuse(c, 403, "a request that changes something must carry the console's own Origin");
			const site = c.req.header("sec-fetch-site");
			if (site !== undefined && site !== "same-origin") return refuse(c, 403, `a request from a ${site} page may not change anything`);
		}
		const token = c.req.query("token");
		if (token !== undefined) {
			if (!sameSecret(token, secrets.token)) return refuse(c, 401, "wrong token: open the URL `warden console` printed");
			setCookie(c, cookieName(binding), secrets.session, { httpOnly: true, sameSite: "Strict", path: "/" });
			const url = new URL(c.req.url);
			url.searchParams.delete("token");
			// Relative, so the redirect names no host of its own.
			return c.redirect(`${url.pathname}${url.search}`, 303);
		}
		const cookie = getCookie(c, cookieName(binding));
		if (cookie === undefined || !sameSecret(cookie, secrets.session)) return refuse(c, 401, "no valid console token: open the URL `warden console` printed");
		await next();
	};
}

/** Sets the security headers on every answer, refusals included. */
export function securityHeaders(): MiddlewareHandler {
	return async (c, next) => {
		await next();
		for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
	};
}
