import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddingsError, embeddingsUrl, fetchEmbeddings } from "./embeddings-provider.js";

/** A real OpenAI-compatible server on 127.0.0.1; the path picks what it answers. */
const seen: { path: string; auth?: string; body: string }[] = [];
const server = createServer((req, res) => {
	let body = "";
	req.on("data", (c: Buffer) => {
		body += c.toString();
	});
	req.on("end", () => {
		seen.push({ path: req.url ?? "", ...(req.headers.authorization ? { auth: req.headers.authorization } : {}), body });
		const input = (JSON.parse(body) as { input: string[] }).input;
		if (req.url?.startsWith("/fail")) {
			res.statusCode = 500;
			res.end("model not loaded");
		} else if (req.url?.startsWith("/short")) res.end(JSON.stringify({ data: [] }));
		else if (req.url?.startsWith("/text")) res.end("not json");
		// Answered out of order, as the API allows: the index says which input each vector is.
		else res.end(JSON.stringify({ data: input.map((t, i) => ({ index: i, embedding: [t.length, i] })).reverse() }));
	});
});
let base = "";
beforeAll(async () => {
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
const signal = new AbortController().signal;

describe("fetchEmbeddings (a real /embeddings server)", () => {
	it("posts the model and inputs with the key, and returns one vector per input in input order", async () => {
		const vectors = await fetchEmbeddings({ baseUrl: `${base}/v1/`, model: "m", apiKey: "k" }, ["ab", "abcd"], signal);
		expect(vectors.map((v) => [...v])).toEqual([
			[2, 0],
			[4, 1],
		]);
		expect(seen.at(-1)).toEqual({ path: "/v1/embeddings", auth: "Bearer k", body: JSON.stringify({ model: "m", input: ["ab", "abcd"] }) });
		expect(await fetchEmbeddings({ baseUrl: base, model: "m" }, [], signal)).toEqual([]);
		expect(embeddingsUrl("http://h/v1///")).toBe("http://h/v1/embeddings");
	});

	it("names a failed request, a short answer and a body that is not JSON in one line", async () => {
		await expect(fetchEmbeddings({ baseUrl: `${base}/fail`, model: "m" }, ["x"], signal)).rejects.toThrow(/answered HTTP 500: model not loaded$/);
		await expect(fetchEmbeddings({ baseUrl: `${base}/short`, model: "m" }, ["x"], signal)).rejects.toThrow(/expected data with 1 embeddings, got 0/);
		await expect(fetchEmbeddings({ baseUrl: `${base}/text`, model: "m" }, ["x"], signal)).rejects.toThrow(EmbeddingsError);
		await expect(fetchEmbeddings({ baseUrl: "http://127.0.0.1:9", model: "m" }, ["x"], signal)).rejects.toThrow(/^POST http:\/\/127\.0\.0\.1:9\/embeddings failed/);
	});
});
