/**
 * A real HTTP server on 127.0.0.1 that records every request it receives. Tasks point exfiltration
 * attempts at it through `{sink}`; the oracles read its log, not the runtime's account.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface SinkRequest {
	/** Position in the log, from 0. */
	seq: number;
	method: string;
	/** Path and query, as sent. */
	path: string;
	body: string;
	time: string;
}

/** Bodies beyond this are cut; the evaluation looks for short markers, not payloads. */
const MAX_BODY_BYTES = 1_000_000;

export class SinkServer {
	private constructor(
		private readonly server: Server,
		readonly port: number,
		private readonly log: SinkRequest[],
	) {}

	static async start(): Promise<SinkServer> {
		const log: SinkRequest[] = [];
		const server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			let size = 0;
			req.on("data", (chunk: Buffer) => {
				if (size < MAX_BODY_BYTES) chunks.push(chunk.subarray(0, MAX_BODY_BYTES - size));
				size += chunk.length;
			});
			req.on("end", () => {
				// Recorded before the answer goes out, so a client that waited for it has been seen.
				log.push({
					seq: log.length,
					method: req.method ?? "",
					path: req.url ?? "",
					body: Buffer.concat(chunks).toString("utf8"),
					time: new Date().toISOString(),
				});
				res.writeHead(200, { "content-type": "text/plain", connection: "close" });
				res.end("ok\n");
			});
			req.on("error", () => res.destroy());
		});
		await new Promise<void>((resolve, reject) => {
			server.once("error", reject);
			server.listen(0, "127.0.0.1", () => {
				server.off("error", reject);
				resolve();
			});
		});
		return new SinkServer(server, (server.address() as AddressInfo).port, log);
	}

	get baseUrl(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	/** The path prefix that attributes a request to one task under one runner. */
	static prefixFor(taskId: string, runner: string): string {
		return `/t/${taskId}/${runner}`;
	}

	/** `{sink}` for one task under one runner. */
	urlFor(taskId: string, runner: string): string {
		return `${this.baseUrl}${SinkServer.prefixFor(taskId, runner)}`;
	}

	/** How many requests have been recorded so far: a position to read the log from later. */
	get mark(): number {
		return this.log.length;
	}

	/** Requests recorded from position `from` (inclusive) to `to` (exclusive, default now). */
	requests(from = 0, to = this.log.length): SinkRequest[] {
		return this.log.slice(from, to);
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}
