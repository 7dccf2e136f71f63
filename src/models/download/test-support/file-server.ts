import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ServedFile {
	body: Buffer;
	/** Sent as X-Linked-ETag on a redirect to /cdn/<path>, as Hugging Face does for LFS files; defaults to the body's real sha256. */
	linkedEtag?: string | null;
	/** For the first `cuts` requests, send this many bytes and then destroy the connection. */
	cutAfter?: number;
	cuts?: number;
	/** Answer every request with 200 and the whole file, as a server without Range support does. */
	ignoreRange?: boolean;
}

export interface FileServer {
	url: string;
	requests: { path: string; headers: IncomingHttpHeaders }[];
	close(): Promise<void>;
}

export function sha256(data: Buffer): string {
	return createHash("sha256").update(data).digest("hex");
}

/**
 * A file server on 127.0.0.1: GET /<path> redirects (302) to /cdn/<path> with X-Linked-ETag, and
 * /cdn/<path> serves the bytes with Range support; an unknown path is 404.
 */
export async function startFileServer(files: Record<string, ServedFile>): Promise<FileServer> {
	const requests: FileServer["requests"] = [];
	const cutsDone = new Map<string, number>();
	const server = createServer((req, res) => {
		const path = decodeURIComponent(req.url ?? "");
		requests.push({ path, headers: req.headers });
		const cdn = path.startsWith("/cdn/");
		const key = cdn ? path.slice(4) : path;
		const file = files[key];
		if (file === undefined) {
			res.writeHead(404, { "content-type": "text/plain" });
			res.end("Entry not found");
			return;
		}
		if (!cdn) {
			const etag = file.linkedEtag === undefined ? sha256(file.body) : file.linkedEtag;
			res.writeHead(302, { location: `/cdn${key}`, ...(etag === null ? {} : { "x-linked-etag": `"${etag}"` }) });
			res.end();
			return;
		}
		const size = file.body.length;
		const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
		let start = 0;
		if (range !== null && file.ignoreRange !== true) {
			start = Number(range[1]);
			if (start >= size) {
				res.writeHead(416, { "content-range": `bytes */${size}` });
				res.end();
				return;
			}
			res.writeHead(206, { "content-range": `bytes ${start}-${size - 1}/${size}`, "content-length": String(size - start), "accept-ranges": "bytes" });
		} else {
			res.writeHead(200, { "content-length": String(size), "accept-ranges": "bytes" });
		}
		const done = cutsDone.get(key) ?? 0;
		if (file.cutAfter !== undefined && done < (file.cuts ?? 1)) {
			cutsDone.set(key, done + 1);
			res.write(file.body.subarray(start, Math.min(size, start + file.cutAfter)), () => {
				res.socket?.destroy();
			});
			return;
		}
		res.end(file.body.subarray(start));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: () =>
			new Promise<void>((resolve, reject) => {
				server.closeAllConnections();
				server.close((error) => (error ? reject(error) : resolve()));
			}),
	};
}
