/**
 * Thin access to the local filesystem. Paths here are absolute and already confined by the
 * kernel; this module does no policy, it only touches the disk.
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants, read as fsRead, fstatSync, lstatSync, openSync, readSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { promisify } from "node:util";

export type FsEntryType = "file" | "dir" | "symlink" | "other";

export interface FsStat {
	type: FsEntryType;
	size: number;
	/** Permission bits (e.g. 0o644). */
	mode: number;
	/** Hard links to the same inode. */
	links: number;
}

export interface FsDirEntry extends FsStat {
	name: string;
}

export interface FsWalkOptions {
	limit: number;
	skipDirs?: readonly string[];
}

export interface FsWalkResult {
	/** Paths of regular files relative to the walk root, `/`-separated, in sorted order. */
	paths: string[];
	truncated: boolean;
}

/** The file is larger than the caller allowed. */
export class FileTooLargeError extends Error {
	override name = "FileTooLargeError";
	constructor(
		readonly size: number,
		readonly maxBytes: number,
	) {
		super(`file is ${size} bytes, more than the ${maxBytes} allowed`);
	}
}

/** The path exists but is a directory, device, FIFO or socket. */
export class NotRegularFileError extends Error {
	override name = "NotRegularFileError";
	constructor(readonly type: FsEntryType) {
		super(`not a regular file (${type})`);
	}
}

function typeOf(st: Stats): FsEntryType {
	if (st.isFile()) return "file";
	if (st.isDirectory()) return "dir";
	if (st.isSymbolicLink()) return "symlink";
	return "other";
}

function toStat(st: Stats): FsStat {
	return { type: typeOf(st), size: st.size, mode: st.mode & 0o7777, links: st.nlink };
}

/** Node's error code (`ENOENT` …), if the value is a system error. */
export function errorCode(err: unknown): string | undefined {
	if (typeof err === "object" && err !== null && "code" in err && typeof err.code === "string") return err.code;
	return undefined;
}

export function realpath(p: string): Promise<string> {
	return fsp.realpath(p);
}

export function readlink(p: string): Promise<string> {
	return fsp.readlink(p);
}

/*
 * Synchronous forms of the metadata lookups a path's confinement makes before every file
 * primitive (realpath, lstat, readlink). Each answers from the kernel's dentry and inode caches in
 * microseconds; its promise form is a round trip through libuv's thread pool that costs more than
 * the lookup, several times per call. Reading and writing contents stays asynchronous.
 */

export function realpathNow(p: string): string {
	return realpathSync.native(p);
}

export function readlinkNow(p: string): string {
	return readlinkSync(p);
}

export function lstatNow(p: string): FsStat {
	return toStat(lstatSync(p));
}

/** lstatNow, or null when nothing is at the path (or a parent is not a directory). */
export function lstatIfExistsNow(p: string): FsStat | null {
	try {
		return lstatNow(p);
	} catch (err) {
		const code = errorCode(err);
		if (code === "ENOENT" || code === "ENOTDIR") return null;
		throw err;
	}
}

export async function lstat(p: string): Promise<FsStat> {
	return toStat(await fsp.lstat(p));
}

/** lstat, or null when nothing is at the path (or a parent is not a directory). */
export async function lstatIfExists(p: string): Promise<FsStat | null> {
	try {
		return await lstat(p);
	} catch (err) {
		const code = errorCode(err);
		if (code === "ENOENT" || code === "ENOTDIR") return null;
		throw err;
	}
}

/**
 * Files up to this size are read on the calling thread: from the page cache that takes a few
 * microseconds, where each thread-pool round trip costs tens (hundreds on a loaded machine). The
 * open and the lstat before it are synchronous anyway; past this size the reads go to the pool.
 */
export const SYNC_READ_MAX_BYTES = 64 * 1024;

const readAsync = promisify(fsRead);

/**
 * Reads a regular file whole. O_NONBLOCK keeps a FIFO from blocking the open; the type is then
 * checked on the open descriptor, so what is checked is what is read.
 */
export async function readFile(p: string, opts: { maxBytes: number }): Promise<Buffer> {
	const fd = openSync(p, constants.O_RDONLY | constants.O_NONBLOCK);
	try {
		// On the open descriptor: its inode is in memory, so this never waits on a disk.
		const st = fstatSync(fd);
		if (!st.isFile()) throw new NotRegularFileError(typeOf(st));
		if (st.size > opts.maxBytes) throw new FileTooLargeError(st.size, opts.maxBytes);
		const small = st.size <= SYNC_READ_MAX_BYTES;
		// Sized by fstat plus one byte, so a read that does not fill it proves the end; a file that
		// grew since is read on into a larger buffer, up to one byte past the limit, and still caught.
		const limit = opts.maxBytes + 1;
		let buf = Buffer.allocUnsafe(Math.min(st.size + 1, limit));
		let filled = 0;
		for (;;) {
			if (filled === buf.length) {
				if (buf.length === limit) break;
				const grown = Buffer.allocUnsafe(Math.min(buf.length * 2, limit));
				buf.copy(grown, 0, 0, filled);
				buf = grown;
			}
			const wanted = buf.length - filled;
			const bytesRead = small ? readSync(fd, buf, filled, wanted, filled) : (await readAsync(fd, buf, filled, wanted, filled)).bytesRead;
			if (bytesRead === 0) break;
			filled += bytesRead;
			// Every byte fstat promised came back and the read fell short of the one past them: the
			// end, as a read of 0 would prove it one round trip later. A file fstat sizes as empty
			// (procfs) or one that grew past its size reads on until a read returns nothing.
			if (st.size > 0 && filled >= st.size && bytesRead < wanted) break;
		}
		if (filled > opts.maxBytes) throw new FileTooLargeError(filled, opts.maxBytes);
		return buf.subarray(0, filled);
	} finally {
		// Closing a descriptor opened read-only cannot change what was read.
		closeSync(fd);
	}
}

/**
 * Writes through a temporary file in the same directory and renames it over the target, so a
 * reader sees the old content or the new, never half of it. Missing parent directories are created.
 */
export async function writeFileAtomic(p: string, data: string | Uint8Array, opts: { mode?: number } = {}): Promise<void> {
	const dir = path.dirname(p);
	await fsp.mkdir(dir, { recursive: true });
	const temp = path.join(dir, `.${path.basename(p)}.${randomBytes(6).toString("hex")}.tmp`);
	try {
		await fsp.writeFile(temp, data, { flag: "wx", mode: opts.mode ?? 0o666 });
		if (opts.mode !== undefined) await fsp.chmod(temp, opts.mode);
		await fsp.rename(temp, p);
	} catch (err) {
		await fsp.rm(temp, { force: true });
		throw err;
	}
}

/** Removes a directory entry that is not a directory; a symlink is removed as the link itself. */
export function unlink(p: string): Promise<void> {
	return fsp.unlink(p);
}

/** Directory entries with their lstat type and size, sorted by name. */
export async function readdirWithTypes(p: string): Promise<FsDirEntry[]> {
	const names = (await fsp.readdir(p)).sort(compareCodeUnits);
	const entries: FsDirEntry[] = [];
	for (const name of names) {
		const st = await lstatIfExists(path.join(p, name));
		// An entry removed between readdir and lstat is simply gone.
		if (st) entries.push({ name, ...st });
	}
	return entries;
}

/**
 * Regular files under `root`, depth first. Entries are ordered by name, with a directory ordered as
 * `name/`, which makes the depth-first order equal the sorted order of the full paths; a truncated
 * walk is therefore a sorted prefix. Symlinks are neither followed nor listed.
 */
export async function walkFiles(root: string, opts: FsWalkOptions): Promise<FsWalkResult> {
	const skip = new Set(opts.skipDirs ?? []);
	const paths: string[] = [];
	let truncated = false;

	async function visit(dir: string, prefix: string): Promise<void> {
		let entries: FsDirEntry[];
		try {
			entries = await readdirWithTypes(dir);
		} catch (err) {
			// A directory we cannot read, or one removed mid-walk, is left out rather than failing the walk.
			const code = errorCode(err);
			if (code === "EACCES" || code === "ENOENT" || code === "ENOTDIR") return;
			throw err;
		}
		const ordered = entries
			.filter((e) => e.type === "file" || (e.type === "dir" && !skip.has(e.name)))
			.map((e) => ({ entry: e, key: e.type === "dir" ? `${e.name}/` : e.name }))
			.sort((a, b) => compareCodeUnits(a.key, b.key));
		for (const { entry } of ordered) {
			if (truncated) return;
			const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
			if (entry.type === "dir") {
				await visit(path.join(dir, entry.name), rel);
			} else if (paths.length >= opts.limit) {
				truncated = true;
			} else {
				paths.push(rel);
			}
		}
	}

	await visit(root, "");
	return { paths, truncated };
}

function compareCodeUnits(a: string, b: string): number {
	if (a < b) return -1;
	if (a > b) return 1;
	return 0;
}
