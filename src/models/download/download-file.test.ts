import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DownloadError, downloadFile } from "./download-file.js";
import { type FileServer, type ServedFile, sha256, startFileServer } from "./test-support/file-server.js";

const MODEL = randomBytes(300_000);
let server: FileServer | undefined;
afterEach(async () => {
	await server?.close();
	server = undefined;
});

async function serve(file: Partial<ServedFile> = {}) {
	server = await startFileServer({ "/org/repo/model.gguf": { body: MODEL, ...file } });
	const dir = mkdtempSync(join(tmpdir(), "warden-download-"));
	return { url: `${server.url}/org/repo/model.gguf`, dest: join(dir, "model.gguf") };
}

async function failure(promise: Promise<unknown>): Promise<string> {
	const error = await promise.catch((e: unknown) => e);
	expect(error).toBeInstanceOf(DownloadError);
	const message = (error as Error).message;
	expect(message).not.toContain("\n");
	return message;
}

describe("downloadFile", () => {
	it("downloads through the redirect, checks the sha256 the server states, and reports progress up to the size", async () => {
		const { url, dest } = await serve();
		const progress: [number, number | undefined][] = [];
		const result = await downloadFile({ url, dest, onProgress: (received, total) => progress.push([received, total]) });
		expect(readFileSync(dest).equals(MODEL)).toBe(true);
		expect(result).toEqual({ path: dest, sha256: sha256(MODEL), bytes: MODEL.length, checkedAgainst: "server", resumedFrom: [] });
		expect(existsSync(`${dest}.partial`)).toBe(false);
		expect(progress[0]).toEqual([0, MODEL.length]);
		expect(progress.at(-1)).toEqual([MODEL.length, MODEL.length]);
		expect(progress.every(([received], i) => i === 0 || received >= progress[i - 1]![0])).toBe(true);
	});

	it("resumes with a Range request after the connection is cut, and the result is whole", async () => {
		const { url, dest } = await serve({ cutAfter: 100_000, cuts: 2 });
		const result = await downloadFile({ url, dest, sha256: sha256(MODEL) });
		expect(readFileSync(dest).equals(MODEL)).toBe(true);
		expect(result.checkedAgainst).toBe("pinned");
		expect(result.resumedFrom).toEqual([100_000, 200_000]);
		const ranges = server!.requests.filter((r) => r.path.startsWith("/cdn/")).map((r) => r.headers.range);
		expect(ranges).toEqual([undefined, "bytes=100000-", "bytes=200000-"]);
	});

	it("keeps what arrived when resumes run out, and a later call picks it up", async () => {
		const { url, dest } = await serve({ cutAfter: 120_000, cuts: 1 });
		expect(await failure(downloadFile({ url, dest, resumes: 0 }))).toBe(`download of model.gguf broke off at 0.1 MB (connection closed by the server); run again to resume from ${dest}.partial`);
		expect(readFileSync(`${dest}.partial`).length).toBe(120_000);
		const result = await downloadFile({ url, dest });
		expect(result.resumedFrom).toEqual([120_000]);
		expect(readFileSync(dest).equals(MODEL)).toBe(true);
	});

	it("starts over when the server ignores Range", async () => {
		const { url, dest } = await serve({ ignoreRange: true });
		writeFileSync(`${dest}.partial`, MODEL.subarray(0, 5000));
		await downloadFile({ url, dest });
		expect(readFileSync(dest).equals(MODEL)).toBe(true);
	});

	it("discards the file on a checksum mismatch, with one line", async () => {
		const { url, dest } = await serve({ linkedEtag: "0".repeat(64) });
		expect(await failure(downloadFile({ url, dest }))).toBe(`checksum mismatch for model.gguf: expected sha256 ${"0".repeat(64)}, got ${sha256(MODEL)}; the download was discarded`);
		expect(existsSync(dest)).toBe(false);
		expect(existsSync(`${dest}.partial`)).toBe(false);
	});

	it("a pinned sha256 wins over the server's", async () => {
		const { url, dest } = await serve();
		expect(await failure(downloadFile({ url, dest, sha256: "a".repeat(64) }))).toMatch(/^checksum mismatch for model\.gguf: expected sha256 a{64}/);
	});

	it("refuses a file with no checksum at all", async () => {
		const { url, dest } = await serve({ linkedEtag: null });
		expect(await failure(downloadFile({ url, dest }))).toMatch(/^no checksum for model\.gguf: none is pinned and 127\.0\.0\.1:\d+ states none \(X-Linked-ETag\); the download was discarded$/);
		expect(existsSync(dest)).toBe(false);
	});

	it("names a 404 in one line", async () => {
		const { dest } = await serve();
		const url = `${server!.url}/org/repo/missing.gguf`;
		expect(await failure(downloadFile({ url, dest }))).toBe(`download of model.gguf failed: ${url} answered HTTP 404 Not Found — check the repository and file name`);
		expect(existsSync(`${dest}.partial`)).toBe(false);
	});

	it.skipIf(!existsSync("/dev/full"))("reports a full disk (ENOSPC, from /dev/full) in one line and keeps the partial file", async () => {
		const { url, dest } = await serve();
		symlinkSync("/dev/full", `${dest}.partial`);
		expect(await failure(downloadFile({ url, dest }))).toBe(`no space left on the device for model.gguf: 0.0 of 0.3 MB written to ${dest}.partial; free some space and run again to resume`);
		expect(existsSync(dest)).toBe(false);
	});

	it("an unreachable host is one line saying what to do", async () => {
		const { dest } = await serve();
		const closed = server!.url;
		await server!.close();
		server = undefined;
		expect(await failure(downloadFile({ url: `${closed}/org/repo/model.gguf`, dest }))).toMatch(/^cannot reach 127\.0\.0\.1:\d+ to download model\.gguf \(connection refused\); check the connection, or pass --model/);
	});

	it("a file already in place is not fetched again", async () => {
		const { url, dest } = await serve();
		await downloadFile({ url, dest });
		const before = server!.requests.length;
		expect(await downloadFile({ url, dest })).toEqual({ path: dest, bytes: MODEL.length, checkedAgainst: "cache", resumedFrom: [] });
		expect(server!.requests.length).toBe(before);
	});
});
