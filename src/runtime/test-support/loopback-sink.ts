/** A real HTTP server on 127.0.0.1 that keeps every request it gets: the far side of a flow test. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackSink {
	origin: string;
	/** Path and body of each request, in arrival order. */
	received: { path: string; body: string }[];
	close(): Promise<void>;
}

export async function openLoopbackSink(): Promise<LoopbackSink> {
	const received: { path: string; body: string }[] = [];
	const server = createServer((req, res) => {
		let body = "";
		req.on("data", (chunk: Buffer) => {
			body += chunk.toString("utf8");
		});
		req.on("end", () => {
			received.push({ path: req.url ?? "", body });
			res.end("ok");
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return {
		origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		received,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** The grants a flow test's session needs: files, and egress to the loopback sink. */
export const LOOPBACK_GRANTS = [
	{ resource: "fs:**", rights: ["read" as const, "write" as const] },
	{ resource: "net:http://127.0.0.1:*", rights: ["egress" as const] },
];
