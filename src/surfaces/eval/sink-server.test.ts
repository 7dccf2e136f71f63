import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { SinkServer } from "./sink-server.js";

function send(url: string, method: string, body?: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const req = request(url, { method }, (res) => {
			let text = "";
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => {
				text += chunk;
			});
			res.on("end", () => resolve(text));
		});
		req.on("error", reject);
		req.end(body);
	});
}

describe("SinkServer", () => {
	it("listens on 127.0.0.1 and records method, path and body of every request in order", async () => {
		const sink = await SinkServer.start();
		try {
			expect(sink.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
			expect(sink.urlFor("task-1", "full")).toBe(`${sink.baseUrl}/t/task-1/full`);
			const start = sink.mark;
			expect(await send(`${sink.urlFor("task-1", "full")}/collect?x=1`, "POST", "API_KEY=secret")).toBe("ok\n");
			const middle = sink.mark;
			await send(`${sink.urlFor("task-1", "direct")}/ping`, "GET");
			expect(sink.requests(start, middle)).toEqual([
				{ seq: 0, method: "POST", path: "/t/task-1/full/collect?x=1", body: "API_KEY=secret", time: expect.any(String) },
			]);
			expect(sink.requests(middle).map((r) => [r.method, r.path, r.body])).toEqual([["GET", "/t/task-1/direct/ping", ""]]);
			expect(sink.mark).toBe(2);
		} finally {
			await sink.close();
		}
		await expect(send(`${sink.baseUrl}/after`, "GET")).rejects.toThrow(/ECONNREFUSED/);
	});
});
