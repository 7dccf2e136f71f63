import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Authority } from "../kernel/authority/authority.js";
import { CapabilityDeniedError } from "../kernel/authority/authority-errors.js";
import { type GrantSpec, issueGrant } from "../kernel/authority/capability.js";
import type { EffectRecord } from "../kernel/effects.js";
import { createKernel } from "../kernel/kernel.js";
import { validateArguments } from "./argument-validator.js";
import { DEFAULT_TOOL_LIMITS, type ToolContext, ToolError } from "./tool.js";
import { webFetchTool } from "./web-fetch.js";

interface Seen {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	body: string;
}

let server: Server;
let origin: string;
let seen: Seen[];

beforeAll(async () => {
	seen = [];
	server = createServer((req, res) => {
		let body = "";
		req.on("data", (c) => {
			body += c;
		});
		req.on("end", () => {
			seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
			if (req.url === "/moved") res.writeHead(302, { location: "/elsewhere" }).end();
			else if (req.url === "/missing") res.writeHead(404, { "content-type": "application/json" }).end('{"error":\n  "no such thing"}');
			else if (req.url === "/big") res.writeHead(200, { "content-type": "text/plain" }).end("y".repeat(5_000));
			else if (req.url === "/empty") res.writeHead(204).end();
			else res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-noise": "1" }).end(`${req.method} ${req.url} got ${body}`);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

function contextWith(specs: readonly GrantSpec[], limits = DEFAULT_TOOL_LIMITS): { ctx: ToolContext; effects: EffectRecord[] } {
	const effects: EffectRecord[] = [];
	const authority = new Authority({ grants: specs.map((s, i) => issueGrant(s, "host", "s", `g${i + 1}`)) }).forCall({ approved: false });
	const signal = new AbortController().signal;
	const kernel = createKernel({
		workspace: process.cwd(),
		callId: "call-w",
		signal,
		recordEffect: async (e) => {
			effects.push(e);
		},
		authority,
	});
	return { ctx: { kernel, callId: "call-w", signal, limits }, effects };
}

const LOCAL_EGRESS: GrantSpec[] = [{ resource: "net:http://127.0.0.1:*", rights: ["egress"] }];

describe("web_fetch", () => {
	it("is a confirmed, non-read-only tool whose rule subject is the URL as a pattern subject", () => {
		expect([webFetchTool.readOnly, webFetchTool.requiresConfirmation]).toEqual([false, true]);
		expect(webFetchTool.ruleSubject({ url: "https://api.example.com/v1/x" })).toEqual({ kind: "pattern", value: "https://api.example.com/v1/x" });
	});

	it("has a strict draft 2020-12 schema with the methods it sends", () => {
		const ok = (args: unknown) => validateArguments(webFetchTool as never, args).ok;
		expect(ok({ url: "http://h/", method: "POST", body: "x", headers: { a: "b" } })).toBe(true);
		expect(ok({ url: "http://h/", method: "OPTIONS" })).toBe(false);
		expect(ok({ url: "http://h/", headers: { a: 1 } })).toBe(false);
		expect(ok({ url: "http://h/", follow: true })).toBe(false);
		expect(ok({})).toBe(false);
	});

	it("GETs a URL and returns the status, the content type and the body, leaving other headers out", async () => {
		const { ctx, effects } = contextWith(LOCAL_EGRESS);
		const result = await webFetchTool.execute({ url: `${origin}/page?q=1` }, ctx);
		expect(result).toEqual({ output: "HTTP 200 OK\ncontent-type: text/plain; charset=utf-8\n\nGET /page?q=1 got " });
		expect(effects.map((e) => [e.effect, e.resource, e.data.method, e.data.status])).toEqual([["net.fetch", `net:${origin}`, "GET", 200]]);
	});

	it("sends a POST with its body and headers", async () => {
		const { ctx } = contextWith(LOCAL_EGRESS);
		const result = await webFetchTool.execute({ url: `${origin}/submit`, method: "POST", body: '{"a":1}', headers: { "content-type": "application/json", "x-trace": "t-1" } }, ctx);
		expect(result.isError).toBeUndefined();
		expect(result.output).toContain('POST /submit got {"a":1}');
		expect(seen.at(-1)).toMatchObject({ method: "POST", url: "/submit", body: '{"a":1}', headers: { "content-type": "application/json", "x-trace": "t-1" } });
	});

	it("sends PUT and DELETE, and a HEAD without a body", async () => {
		const { ctx } = contextWith(LOCAL_EGRESS);
		expect((await webFetchTool.execute({ url: `${origin}/r`, method: "PUT", body: "v" }, ctx)).output).toContain("PUT /r got v");
		expect((await webFetchTool.execute({ url: `${origin}/r`, method: "DELETE" }, ctx)).output).toContain("DELETE /r got ");
		const head = await webFetchTool.execute({ url: `${origin}/r`, method: "HEAD" }, ctx);
		expect(head.output).toBe("HTTP 200 OK\ncontent-type: text/plain; charset=utf-8\n\n(no body)");
		expect(seen.at(-1)?.method).toBe("HEAD");
		expect((await webFetchTool.execute({ url: `${origin}/empty` }, ctx)).output).toBe("HTTP 204 No Content\n\n(no body)");
	});

	it("reports a non-2xx response as an error on one line with the start of its body", async () => {
		const { ctx } = contextWith(LOCAL_EGRESS);
		const result = await webFetchTool.execute({ url: `${origin}/missing` }, ctx);
		expect(result).toEqual({ output: `HTTP 404 Not Found from ${origin}/missing: {"error": "no such thing"}`, isError: true });
	});

	it("does not follow a redirect: it reports where it points", async () => {
		const { ctx } = contextWith(LOCAL_EGRESS);
		const before = seen.length;
		const result = await webFetchTool.execute({ url: `${origin}/moved` }, ctx);
		expect(result).toEqual({ output: "HTTP 302 Found: redirected to /elsewhere (not followed; fetch that URL to continue)", isError: true });
		expect(seen.slice(before).map((s) => s.url)).toEqual(["/moved"]);
	});

	it("bounds the body to the model's budget and says so", async () => {
		const { ctx } = contextWith(LOCAL_EGRESS, { ...DEFAULT_TOOL_LIMITS, maxResultChars: 500 });
		const result = await webFetchTool.execute({ url: `${origin}/big` }, ctx);
		expect(result.output.length).toBeLessThanOrEqual(500);
		expect(result.output).toMatch(/\[truncated: showing the first \d+ of 5000 characters\]$/);
	});

	it("says when the kernel stopped reading at the read limit", async () => {
		const { ctx } = contextWith(LOCAL_EGRESS, { ...DEFAULT_TOOL_LIMITS, maxReadBytes: 100 });
		const result = await webFetchTool.execute({ url: `${origin}/big` }, ctx);
		expect(result.output).toContain("[response truncated: only the first 100 bytes were read]");
		expect(result.output.endsWith("y".repeat(100))).toBe(true);
	});

	it("fails without a grant for the origin, sending nothing", async () => {
		const { ctx, effects } = contextWith([{ resource: "net:https://api.example.com:443", rights: ["egress"] }]);
		const before = seen.length;
		await expect(webFetchTool.execute({ url: `${origin}/secret` }, ctx)).rejects.toBeInstanceOf(CapabilityDeniedError);
		expect(seen.length).toBe(before);
		expect(effects).toEqual([]);
	});

	it("turns a malformed URL and an unreachable host into tool failures", async () => {
		const { ctx } = contextWith(LOCAL_EGRESS);
		await expect(webFetchTool.execute({ url: "ftp://127.0.0.1/x" }, ctx)).rejects.toThrow(new ToolError("net.fetch supports http: and https: URLs, not ftp:"));
		await expect(webFetchTool.execute({ url: "http://127.0.0.1:1/" }, ctx)).rejects.toBeInstanceOf(ToolError);
		await expect(webFetchTool.execute({ url: `${origin}/x`, method: "GET", body: "no" }, ctx)).rejects.toThrow("a GET request cannot carry a body");
	});
});
