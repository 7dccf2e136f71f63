/**
 * Downloads one file into place: into `<dest>.partial` first, resumed with an HTTP Range request
 * after a cut connection (in this call, and in a later one), checked against a sha256 (pinned, or
 * the one the server states for the file), and renamed to `dest` only once it matches. A file at
 * `dest` is therefore always a verified one.
 */
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, rename, stat, statfs, unlink } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { ModelError } from "../provider.js";
import type { ProgressReport } from "./progress-bar.js";

export interface DownloadRequest {
	url: string;
	dest: string;
	/** The file's sha256 in hex, when pinned; otherwise the server must state one (Hugging Face's X-Linked-ETag). */
	sha256?: string;
	onProgress?: ProgressReport;
	/** How many times one call resumes after a cut connection before giving up (default 3). */
	resumes?: number;
	/** Sent to the first host only (an access token must not follow a redirect to a CDN). */
	headers?: Record<string, string>;
	signal?: AbortSignal;
}

export interface DownloadResult {
	path: string;
	/** The verified sha256; absent for a file found in the cache (it was verified when it was put there). */
	sha256?: string;
	bytes: number;
	/** Where the expected checksum came from; `cache` when the file was already there. */
	checkedAgainst: "pinned" | "server" | "cache";
	/** Offsets the download resumed from, in this call. */
	resumedFrom: number[];
}

/** A download that failed; its message is one line for the user (named ModelError, so the CLI shows it as such). */
export class DownloadError extends ModelError {}

/** The connection broke off; what arrived stays in the .partial file. */
class CutError extends Error {}

const MAX_REDIRECTS = 5;
const SHA256 = /^[0-9a-f]{64}$/;

export async function downloadFile(request: DownloadRequest): Promise<DownloadResult> {
	const name = basename(request.dest);
	const pinned = request.sha256?.toLowerCase();
	if (pinned !== undefined && !SHA256.test(pinned)) throw new DownloadError(`the pinned sha256 for ${name} is not 64 hex digits`);
	const existing = await sizeOf(request.dest);
	if (existing !== undefined) {
		// Only a verified file is ever renamed into place.
		return { path: request.dest, bytes: existing, checkedAgainst: "cache", resumedFrom: [] };
	}
	await mkdir(dirname(request.dest), { recursive: true });
	const partial = `${request.dest}.partial`;
	const resumedFrom: number[] = [];
	const allowed = request.resumes ?? 3;
	let stated: string | undefined;
	const running: RunningHash = { hash: createHash("sha256"), bytes: 0 };
	for (let attempt = 0; ; attempt++) {
		const offset = (await sizeOf(partial)) ?? 0;
		if (offset > 0) resumedFrom.push(offset);
		try {
			stated = (await fetchInto(request, partial, offset, name, running)) ?? stated;
			break;
		} catch (error) {
			if (!(error instanceof CutError)) throw error;
			if (attempt >= allowed) {
				const got = (await sizeOf(partial)) ?? 0;
				throw new DownloadError(`download of ${name} broke off at ${mb(got)} MB (${error.message})${allowed > 0 ? ` after ${allowed} resumes` : ""}; run again to resume from ${partial}`);
			}
		}
	}
	const expected = pinned ?? stated;
	if (expected === undefined) {
		await unlink(partial).catch(() => undefined);
		throw new DownloadError(`no checksum for ${name}: none is pinned and ${new URL(request.url).host} states none (X-Linked-ETag); the download was discarded`);
	}
	const actual = running.hash.digest("hex");
	if (actual !== expected) {
		await unlink(partial).catch(() => undefined);
		throw new DownloadError(`checksum mismatch for ${name}: expected sha256 ${expected}, got ${actual}; the download was discarded`);
	}
	await rename(partial, request.dest);
	return { path: request.dest, sha256: actual, bytes: (await sizeOf(request.dest)) ?? 0, checkedAgainst: pinned ? "pinned" : "server", resumedFrom };
}

/** The sha256 of the partial file's first `bytes` bytes, kept as they are written so the file is not read again. */
interface RunningHash {
	hash: Hash;
	bytes: number;
}

/** Writes are gathered to this size: one write per network chunk costs more than the hash. */
const WRITE_BATCH = 1_048_576;

/** Makes `running` the hash of the partial file's first `upTo` bytes: kept when it is, restarted or read from the file when not. */
async function hashUpTo(running: RunningHash, partial: string, upTo: number): Promise<void> {
	if (running.bytes === upTo) return;
	running.hash = createHash("sha256");
	running.bytes = 0;
	if (upTo === 0) return;
	// A .partial file left by an earlier run: hashed once, then continued.
	for await (const chunk of createReadStream(partial, { end: upTo - 1 })) {
		running.hash.update(chunk as Buffer);
		running.bytes += (chunk as Buffer).length;
	}
}

/** One request from `offset` on, appended to the partial file and to `running`; gives the sha256 the server stated, if any. */
async function fetchInto(request: DownloadRequest, partial: string, offset: number, name: string, running: RunningHash): Promise<string | undefined> {
	const { response, stated } = await follow(request, offset, name);
	let start = offset;
	let total: number | undefined;
	if (response.status === 416 && offset > 0) {
		await response.body?.cancel();
		const whole = /\/(\d+)\s*$/.exec(response.headers.get("content-range") ?? "");
		// The partial file already holds the whole file: only the checksum is left to do.
		if (whole !== null && Number(whole[1]) === offset) {
			await hashUpTo(running, partial, offset);
			return stated;
		}
		await unlink(partial);
		throw new CutError("the server refused to resume; starting over");
	}
	if (response.status === 206) {
		const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(response.headers.get("content-range")?.trim() ?? "");
		if (range === null || Number(range[1]) !== offset) {
			await response.body?.cancel();
			await unlink(partial).catch(() => undefined);
			throw new CutError("the server resumed at the wrong offset; starting over");
		}
		if (range[2] !== "*") total = Number(range[2]);
	} else if (response.ok) {
		// A server that ignores Range sends the whole file again: start over.
		start = 0;
		const length = Number(response.headers.get("content-length") ?? "");
		if (Number.isFinite(length) && length > 0) total = length;
	} else {
		await response.body?.cancel();
		throw new DownloadError(`download of ${name} failed: ${request.url} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}${statusHint(response.status)}`);
	}
	if (total !== undefined) await ensureSpace(partial, total - start, name);
	if (response.body === null) throw new CutError("empty response");
	await hashUpTo(running, partial, start);
	const file = await open(partial, start === 0 ? "w" : "a");
	let received = start;
	let pending: Uint8Array[] = [];
	let pendingBytes = 0;
	// What arrived is written (and hashed) before any error leaves, so a resume starts where the file ends.
	const flush = async () => {
		if (pendingBytes === 0) return;
		const batch = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
		pending = [];
		pendingBytes = 0;
		try {
			await file.write(batch);
		} catch (error) {
			if (codeOf(error) === "ENOSPC") {
				throw new DownloadError(`no space left on the device for ${name}: ${mb(running.bytes)}${total ? ` of ${mb(total)}` : ""} MB written to ${partial}; free some space and run again to resume`);
			}
			throw new DownloadError(`cannot write ${partial}: ${error instanceof Error ? error.message : String(error)}`);
		}
		running.hash.update(batch);
		running.bytes += batch.byteLength;
	};
	request.onProgress?.(received, total);
	const reader = response.body.getReader();
	try {
		for (;;) {
			let chunk: Awaited<ReturnType<typeof reader.read>>;
			try {
				chunk = await reader.read();
			} catch (error) {
				await flush();
				if (request.signal?.aborted) throw new DownloadError(`download of ${name} cancelled; run again to resume from ${partial}`);
				throw new CutError(networkReason(error));
			}
			if (chunk.done) break;
			pending.push(chunk.value);
			pendingBytes += chunk.value.byteLength;
			received += chunk.value.byteLength;
			if (pendingBytes >= WRITE_BATCH) await flush();
			request.onProgress?.(received, total);
		}
		await flush();
	} catch (error) {
		await reader.cancel().catch(() => undefined);
		throw error;
	} finally {
		await file.close();
	}
	if (total !== undefined && received < total) throw new CutError(`the server closed the connection at ${mb(received)} of ${mb(total)} MB`);
	return stated;
}

/** Follows redirects by hand so that the sha256 Hugging Face states on the redirect (X-Linked-ETag) is read, and a token stays with its host. */
async function follow(request: DownloadRequest, offset: number, name: string): Promise<{ response: Response; stated?: string }> {
	let url = request.url;
	let stated: string | undefined;
	const origin = new URL(url).origin;
	for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
		const headers: Record<string, string> = { ...(new URL(url).origin === origin ? request.headers : {}), "accept-encoding": "identity" };
		if (offset > 0) headers.range = `bytes=${offset}-`;
		let response: Response;
		try {
			response = await fetch(url, { headers, redirect: "manual", ...(request.signal ? { signal: request.signal } : {}) });
		} catch (error) {
			if (request.signal?.aborted) throw new DownloadError(`download of ${name} cancelled`);
			const reason = networkReason(error);
			// Before the first byte of this attempt: a reset is worth a resume; a host that is not there is not.
			if (/reset|closed|timed out/.test(reason)) throw new CutError(reason);
			throw new DownloadError(`cannot reach ${new URL(url).host} to download ${name} (${reason}); check the connection, or pass --model with a model you have`);
		}
		stated = statedSha(response.headers) ?? stated;
		const location = response.headers.get("location");
		if (response.status >= 300 && response.status < 400 && location !== null) {
			await response.body?.cancel();
			url = new URL(location, url).toString();
			continue;
		}
		return { response, ...(stated !== undefined ? { stated } : {}) };
	}
	throw new DownloadError(`download of ${name} failed: more than ${MAX_REDIRECTS} redirects from ${request.url}`);
}

function statedSha(headers: Headers): string | undefined {
	for (const header of ["x-linked-etag", "etag"]) {
		const value = headers.get(header)?.replace(/^W\//, "").replaceAll('"', "").trim().toLowerCase();
		if (value !== undefined && SHA256.test(value)) return value;
	}
	return undefined;
}

async function ensureSpace(partial: string, needed: number, name: string): Promise<void> {
	const fs = await statfs(dirname(partial)).catch(() => undefined);
	if (fs === undefined) return;
	const free = fs.bavail * fs.bsize;
	if (free < needed) throw new DownloadError(`no space left on the device for ${name}: it needs ${mb(needed)} MB more, ${mb(free)} MB are free in ${dirname(partial)}`);
}

function statusHint(status: number): string {
	if (status === 404) return " — check the repository and file name";
	if (status === 401 || status === 403) return " — the repository may be gated or private: set HF_TOKEN";
	if (status === 429 || status >= 500) return " — the server is busy; run again later to resume";
	return "";
}

async function sizeOf(path: string): Promise<number | undefined> {
	try {
		return (await stat(path)).size;
	} catch {
		return undefined;
	}
}

function codeOf(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
		if ("code" in current && typeof current.code === "string") return current.code;
		current = current instanceof Error ? current.cause : undefined;
	}
	return undefined;
}

function networkReason(error: unknown): string {
	const code = codeOf(error);
	const words: Record<string, string> = {
		ECONNRESET: "connection reset",
		ECONNREFUSED: "connection refused",
		ENOTFOUND: "host not found",
		EAI_AGAIN: "host lookup failed",
		ETIMEDOUT: "timed out",
		UND_ERR_SOCKET: "connection closed by the server",
		ENETUNREACH: "network unreachable",
	};
	if (code !== undefined && words[code] !== undefined) return words[code];
	const message = error instanceof Error ? error.message : String(error);
	return message === "terminated" ? "connection closed by the server" : message;
}

function mb(bytes: number): string {
	return (bytes / 1_048_576).toFixed(1);
}
