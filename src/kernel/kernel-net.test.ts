import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Authority } from "./authority/authority.js";
import { CapabilityDeniedError } from "./authority/authority-errors.js";
import { type GrantSpec, issueGrant } from "./authority/capability.js";
import { Budget } from "./budget/budget.js";
import type { EffectRecord } from "./effects.js";
import { createKernel } from "./kernel.js";
import { NetPrimitiveError } from "./kernel-net.js";

let server: Server;
let origin: string;
let hits: string[];

beforeAll(async () => {
	hits = [];
	server = createServer((req, res) => {
		hits.push(`${req.method} ${req.url}`);
		if (req.url === "/big") {
			res.end("x".repeat(10_000));
		} else if (req.url === "/slow") {
			setTimeout(() => res.end("late"), 2_000).unref();
		} else if (req.url === "/moved") {
			res.writeHead(302, { location: "http://example.invalid/elsewhere" }).end();
		} else {
			let body = "";
			req.on("data", (c) => {
				body += c;
			});
			req.on("end", () => res.writeHead(200, { "x-echo": req.method ?? "" }).end(`got ${body}`));
		}
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

function kernelWith(specs: readonly GrantSpec[] | null, budget?: Budget) {
	const effects: EffectRecord[] = [];
	const authority = specs && new Authority({ grants: specs.map((s, i) => issueGrant(s, "host", "s", `g${i + 1}`)) }).forCall({ approved: false });
	const kernel = createKernel({
		workspace: process.cwd(),
		callId: "call-n",
		signal: new AbortController().signal,
		recordEffect: async (e) => {
			effects.push(e);
		},
		...(authority ? { authority } : {}),
		...(budget ? { budget } : {}),
	});
	return { kernel, effects };
}

describe("net.fetch", () => {
	it("fetches from an origin a grant covers and records the exchange before returning", async () => {
		const { kernel, effects } = kernelWith([{ resource: `net:${origin}`, rights: ["egress"] }]);
		const res = await kernel.net.fetch({ url: `${origin}/echo?q=1`, method: "post", headers: { "content-type": "text/plain" }, body: "hello" });
		expect(res).toMatchObject({ status: 200, body: "got hello", bytes: 9, truncated: false, url: `${origin}/echo?q=1` });
		expect(res.headers["x-echo"]).toBe("POST");
		expect(effects).toEqual([
			{
				call_id: "call-n",
				effect: "net.fetch",
				resource: `net:${origin}`,
				data: { url: `${origin}/echo?q=1`, method: "POST", request_bytes: 5, outcome: "completed", status: 200, response_bytes: 9, truncated: false, duration_ms: res.durationMs },
			},
		]);
	});

	it("refuses without a grant, for another port, and without an authority, sending nothing", async () => {
		const before = hits.length;
		await expect(kernelWith([]).kernel.net.fetch({ url: `${origin}/echo` })).rejects.toThrow(`capability refused: egress on net:${origin}: no grant covers it`);
		const other = kernelWith([{ resource: "net:http://127.0.0.1:1", rights: ["egress"] }]);
		await expect(other.kernel.net.fetch({ url: `${origin}/echo` })).rejects.toBeInstanceOf(CapabilityDeniedError);
		await expect(kernelWith(null).kernel.net.fetch({ url: `${origin}/echo` })).rejects.toBeInstanceOf(NetPrimitiveError);
		expect(hits.length).toBe(before);
		expect(other.effects).toEqual([]);
	});

	it("stops reading at the size cap, marks the response truncated and charges what was read", async () => {
		const budget = new Budget("session", { bytes_read: 5_000 });
		const { kernel, effects } = kernelWith([{ resource: "net:http://127.0.0.1:*", rights: ["egress"] }], budget);
		const res = await kernel.net.fetch({ url: `${origin}/big`, maxBytes: 1_000 });
		expect(res).toMatchObject({ bytes: 1_000, truncated: true });
		expect(res.body).toBe("x".repeat(1_000));
		expect(effects[0]?.data).toMatchObject({ response_bytes: 1_000, truncated: true });
		expect(budget.usage().bytes_read).toEqual({ used: 1_000, limit: 5_000 });
		await expect(kernel.net.fetch({ url: `${origin}/big`, maxBytes: 4_001 })).rejects.toThrow(/bytes_read/);
	});

	it("times out, records the failure and charges the whole cap", async () => {
		const budget = new Budget("session");
		const { kernel, effects } = kernelWith([{ resource: `net:${origin}`, rights: ["egress"] }], budget);
		await expect(kernel.net.fetch({ url: `${origin}/slow`, timeoutMs: 150, maxBytes: 64 })).rejects.toThrow(/^GET http:\/\/127\.0\.0\.1:\d+\/slow failed: .*150/);
		expect(effects[0]?.data).toMatchObject({ outcome: "failed", response_bytes: 0, error: `GET ${origin}/slow timed out after 150 ms` });
		expect(budget.usage().bytes_read).toEqual({ used: 64 });
	});

	it("does not follow a redirect to another origin", async () => {
		const { kernel } = kernelWith([{ resource: `net:${origin}`, rights: ["egress"] }]);
		const res = await kernel.net.fetch({ url: `${origin}/moved` });
		expect(res.status).toBe(302);
		expect(res.headers.location).toBe("http://example.invalid/elsewhere");
	});

	it("refuses malformed requests before admission", async () => {
		const { kernel } = kernelWith([{ resource: "net:*", rights: ["egress"] }]);
		await expect(kernel.net.fetch({ url: "file:///etc/passwd" })).rejects.toThrow("net.fetch supports http: and https: URLs, not file:");
		await expect(kernel.net.fetch({ url: "not a url" })).rejects.toThrow('"not a url" is not a URL');
		await expect(kernel.net.fetch({ url: origin, method: "GET", body: "x" })).rejects.toThrow("a GET request cannot carry a body");
		await expect(kernel.net.fetch({ url: origin, method: "CONNECT" })).rejects.toThrow('net.fetch does not send "CONNECT" requests');
	});
});
