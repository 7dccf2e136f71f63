/** The filesystem primitives: confined to the workspace, and every write recorded with its diff. */
import * as path from "node:path";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import {
	errorCode,
	FileTooLargeError as ProviderFileTooLargeError,
	lstat,
	lstatIfExists,
	lstatNow,
	NotRegularFileError,
	readdirWithTypes,
	readFile,
	readlink,
	unlink,
	walkFiles,
} from "../providers/fs-provider.js";
import { type EditorFiles, fileReader, fileWriter } from "../providers/editor-fs-provider.js";
import type { CallAuthority } from "./authority/authority.js";
import { fsResource } from "./authority/resource.js";
import type { Budget } from "./budget/budget.js";
import type { EffectSink } from "./effects.js";
import type { CallFlow, FlowDecisionRecord } from "./flow/flow-types.js";
import { flowEvidence } from "./flow/flow-evidence.js";
import { sha256Hex } from "./evidence/sha256.js";
import { type OperationLog, runProtected } from "./operations/protected-operation.js";
import { ProtectedGuard } from "./protected/protected-guard.js";
import { BinaryFileError, FileTooLargeError, FsPrimitiveError, InvalidPathError, PrimitiveCancelledError } from "./kernel-errors.js";
import type { DeleteOutcome, DirEntry, FileContent, FsPrimitives, WalkOptions, WriteOutcome } from "./primitives.js";
import { displayPath, resolveWorkspacePath, type WorkspaceRoot } from "./workspace-paths.js";

export interface FsPrimitivesOptions {
	root: () => Promise<WorkspaceRoot>;
	callId: string;
	signal: AbortSignal;
	recordEffect: EffectSink;
	budget?: Budget | undefined;
	authority?: CallAuthority | undefined;
	flow?: CallFlow | undefined;
	/** Durable intents and settlements; without it, effects are recorded through recordEffect only. */
	operations?: OperationLog | undefined;
	/** Protected paths and this call's clearance; without one, the default registry with no clearance. */
	protect?: ProtectedGuard | undefined;
	/** An editor's buffers (an ACP client's): file contents are read and written through it, admitted and recorded the same. */
	files?: EditorFiles | undefined;
}

/** fs.read's limit when the caller gives none. */
export const DEFAULT_READ_MAX_BYTES = 10 * 1024 * 1024;
/** The largest existing file fs.write will replace or fs.delete remove: its old content must be read for the diff. */
export const WRITE_REPLACE_MAX_BYTES = 16 * 1024 * 1024;
/** Past this, computing a diff is abandoned and the record says so. */
const DIFF_TIMEOUT_MS = 2_000;

export function createFsPrimitives(opts: FsPrimitivesOptions): FsPrimitives {
	const resolve = async (p: string) => resolveWorkspacePath(await opts.root(), p);
	const protect = opts.protect ?? new ProtectedGuard();
	const readContent = fileReader(opts.files);
	const writeContent = fileWriter(opts.files);
	const via = opts.files?.writeTextFile ? { via: opts.files.name } : {};

	return {
		async read(p, readOpts): Promise<FileContent> {
			const { rel, abs } = await resolve(p);
			const maxBytes = readOpts?.maxBytes ?? DEFAULT_READ_MAX_BYTES;
			const st = await guard(rel, async () => lstatNow(abs));
			refuseHardLinked(rel, st);
			opts.authority?.admit([{ resource: fsResource(rel), right: "read", bytes: Math.min(st.size, maxBytes) }]);
			// The size as lstat saw it, capped where the read would refuse anyway; settled at what was read.
			const held = opts.budget?.reserve("bytes_read", Math.min(st.size, maxBytes));
			let buf: Buffer;
			try {
				buf = await guard(rel, () => readContent(abs, { maxBytes }));
			} catch (err) {
				held?.release();
				throw err;
			}
			held?.settle(buf.length);
			if (buf.includes(0)) throw new BinaryFileError(`${rel} is a binary file (${buf.length} bytes)`);
			const file: FileContent = { path: rel, content: buf.toString("utf8"), bytes: buf.length, sha256: sha256(buf) };
			// What was read is labelled before anyone sees it: the call's result carries the file's label.
			if (opts.flow) opts.flow.observe(await opts.flow.fileLabel(rel, file.sha256), file.content);
			return file;
		},

		async write(p, content): Promise<WriteOutcome> {
			if (opts.signal.aborted) throw new PrimitiveCancelledError(`write to ${p} cancelled before it started`);
			const { rel, abs } = await resolve(p);
			if (rel === ".") throw new FsPrimitiveError("the workspace root is a directory, not a file");
			// On the real target: a workspace symlink into .git/hooks is the hook it leads to.
			protect.check(rel, "write");
			opts.authority?.admit([{ resource: fsResource(rel), right: "write", bytes: Buffer.byteLength(content, "utf8") }]);
			const existing = await guard(rel, () => lstatIfExists(abs));
			if (existing && existing.type !== "file") throw new FsPrimitiveError(`${rel} is ${describeType(existing.type)}, not a regular file`);

			let before: Buffer | null = null;
			if (existing) {
				try {
					before = await guard(rel, () => readContent(abs, { maxBytes: WRITE_REPLACE_MAX_BYTES }));
				} catch (err) {
					if (err instanceof FileTooLargeError) {
						throw new FileTooLargeError(`${rel} is larger than ${WRITE_REPLACE_MAX_BYTES} bytes; refusing to replace it`);
					}
					throw err;
				}
			}
			const after = Buffer.from(content, "utf8");
			const diff = unifiedDiff(rel, before, content);
			// A workspace file is a sink too: a host rule may keep secret or untrusted data out of it. What
			// this call read before it writes (edit_file's old text, a JIT tool's fetched page) goes into
			// the bytes too, so their label does, and is what the file keeps for the next reader.
			const flow: FlowDecisionRecord[] = opts.flow ? await opts.flow.admitEgress({ operation: "fs.write", sinks: [fsResource(rel)], payload: content, label: opts.flow.resultLabel }) : [];

			const held = opts.budget?.reserve("bytes_written", after.length);
			const written = sha256(after);
			const outcome: WriteOutcome = { path: rel, created: before === null, bytesWritten: after.length, diff };
			const shaBefore = before === null ? null : sha256(before);
			try {
				await runProtected(opts.operations, opts.recordEffect, {
					kind: "fs.write",
					callId: opts.callId,
					resource: fsResource(rel),
					intent: { path: rel, sha256_before: shaBefore, sha256_after: written },
					reserved: { bytes_written: after.length },
					...(before !== null && (await keepable(opts.flow, rel, shaBefore as string, before)) ? { beforeImage: { sha256: shaBefore as string, bytes: before } } : {}),
					revalidate: () => {
						if (opts.signal.aborted) throw new PrimitiveCancelledError(`write to ${rel} cancelled before it started`);
					},
					dispatch: () => guard(rel, () => writeContent(abs, after, existing ? { mode: existing.mode } : {})),
					// The write is atomic (a temporary file renamed over the old one): a failure left the old content.
					errored: () => ({ state: "failed" }),
					settled: () => ({
						state: "committed",
						effect: {
							created: outcome.created,
							bytes: after.length,
							diff,
							sha256_before: shaBefore,
							sha256_after: written,
							...via,
							...flowEvidence(flow),
						},
					}),
				});
			} catch (err) {
				// Refused before dispatch: nothing was written, so nothing is charged.
				if (err instanceof PrimitiveCancelledError) held?.release();
				// A failed write may still have replaced the file: without a better measurement it is charged in full.
				else held?.settle(after.length);
				throw err;
			}
			held?.settle(after.length);
			// The bytes keep their label: reading them back later, in this session or another, carries it.
			if (opts.flow && flow[0]) await opts.flow.labelWrite(rel, written, flow[0].label);
			return outcome;
		},

		/**
		 * Admitted with `delete` on the entry's own path: the parent directory is resolved to its real
		 * path and the last name is not followed, so a symlink is removed as the link and its target
		 * is untouched. Budget-neutral: a zero `bytes_written` reservation counts nothing (only a counter
		 * already past its limit refuses it); reading the old content for the record is not charged.
		 */
		async delete(p): Promise<DeleteOutcome> {
			if (opts.signal.aborted) throw new PrimitiveCancelledError(`delete of ${p} cancelled before it started`);
			const { rel, abs } = await resolveEntry(await opts.root(), p);
			const st = await guard(rel, () => lstat(abs));
			if (st.type !== "file" && st.type !== "symlink") throw new FsPrimitiveError(`${rel} is ${describeType(st.type)}; fs.delete removes only files`);
			if (st.type === "file" && st.links > 1) {
				throw new FsPrimitiveError(`${rel} has ${st.links} hard links; Warden cannot tell where the others are, so it refuses to record and delete it`);
			}
			protect.check(rel, "delete");
			opts.authority?.admit([{ resource: fsResource(rel), right: "delete", bytes: st.size }]);

			let before: Buffer;
			let linkTarget: string | undefined;
			if (st.type === "symlink") {
				linkTarget = await guard(rel, () => readlink(abs));
				before = Buffer.from(linkTarget, "utf8");
			} else {
				try {
					before = await guard(rel, () => readFile(abs, { maxBytes: WRITE_REPLACE_MAX_BYTES }));
				} catch (err) {
					if (err instanceof FileTooLargeError) throw new FileTooLargeError(`${rel} is larger than ${WRITE_REPLACE_MAX_BYTES} bytes; refusing to delete it`);
					throw err;
				}
			}
			const diff = linkTarget === undefined ? removalDiff(rel, before) : `--- a/${rel}\n+++ /dev/null\n(symbolic link to ${displayPath(linkTarget)} deleted)\n`;

			const held = opts.budget?.reserve("bytes_written", 0);
			const outcome: DeleteOutcome = { path: rel, type: st.type, bytes: before.length, sha256: sha256(before), diff };
			try {
				await runProtected(opts.operations, opts.recordEffect, {
					kind: "fs.delete",
					callId: opts.callId,
					resource: fsResource(rel),
					intent: { path: rel, type: st.type, sha256: outcome.sha256 },
					reserved: {},
					...((await keepable(opts.flow, rel, outcome.sha256, before)) ? { beforeImage: { sha256: outcome.sha256, bytes: before } } : {}),
					revalidate: () => {
						if (opts.signal.aborted) throw new PrimitiveCancelledError(`delete of ${rel} cancelled before it started`);
					},
					dispatch: () => guard(rel, () => unlink(abs)),
					errored: () => ({ state: "failed" }),
					settled: () => ({
						state: "committed",
						effect: {
							type: outcome.type,
							bytes: outcome.bytes,
							sha256: outcome.sha256,
							diff,
							...(linkTarget === undefined ? {} : { symlink_target: linkTarget }),
						},
					}),
				});
			} finally {
				held?.settle(0);
			}
			return outcome;
		},

		async list(p): Promise<DirEntry[]> {
			const { rel, abs } = await resolve(p);
			opts.authority?.admit([{ resource: fsResource(rel), right: "read" }]);
			const st = await guard(rel, () => lstat(abs));
			if (st.type !== "dir") throw new FsPrimitiveError(`${rel} is ${describeType(st.type)}, not a directory`);
			const entries = await guard(rel, () => readdirWithTypes(abs));
			return entries.map((e) => ({ name: e.name, type: e.type, size: e.size }));
		},

		async walk(p, walkOpts: WalkOptions) {
			const { rel, abs } = await resolve(p);
			opts.authority?.admit([{ resource: fsResource(rel), right: "read" }]);
			const st = await guard(rel, () => lstat(abs));
			if (st.type === "file") return walkOpts.limit > 0 ? { paths: [rel], truncated: false } : { paths: [], truncated: true };
			if (st.type !== "dir") throw new FsPrimitiveError(`${rel} is ${describeType(st.type)}, not a directory`);
			const result = await guard(rel, () => walkFiles(abs, walkOpts));
			const paths = rel === "." ? result.paths : result.paths.map((f) => `${rel}/${f}`);
			// Names the holder may not read are left out, so a walk cannot list what a read would refuse.
			const authority = opts.authority;
			return {
				paths: authority ? paths.filter((f) => authority.permits({ resource: fsResource(f), right: "read" })) : paths,
				truncated: result.truncated,
			};
		},

		async resolve(p) {
			return (await resolve(p)).rel;
		},
	};
}

/**
 * A before-image is kept for undo unless the flow plane says the bytes are secret: evidence never
 * holds secrets, so such a change cannot be undone from the store.
 */
async function keepable(flow: CallFlow | undefined, rel: string, sha: string, bytes: Buffer): Promise<boolean> {
	if (!flow) return true;
	return flow.mayPersist(rel, sha, bytes.toString("utf8"));
}

/**
 * A hard link inside the workspace can name a file that also lives outside it, and nothing on
 * the inode says where its other names are. Reading it could leak that file, so a regular file
 * with more than one link is refused. (Writes replace the directory entry atomically, which
 * breaks the link instead of writing through it.)
 */
function refuseHardLinked(rel: string, st: { type: string; links: number }): void {
	if (st.type === "file" && st.links > 1) {
		throw new FsPrimitiveError(`${rel} has ${st.links} hard links; Warden cannot tell where the others are, so it refuses to read it`);
	}
}

function sha256(buf: Uint8Array): string {
	return sha256Hex(buf);
}

function unifiedDiff(rel: string, before: Buffer | null, after: string): string {
	const header = `--- a/${rel}\n+++ b/${rel}\n`;
	if (before?.includes(0)) return `${header}(binary file replaced: no text diff)\n`;
	const patch = createTwoFilesPatch(`a/${rel}`, `b/${rel}`, before?.toString("utf8") ?? "", after, undefined, undefined, {
		headerOptions: FILE_HEADERS_ONLY,
		timeout: DIFF_TIMEOUT_MS,
	});
	return patch ?? `${header}(diff omitted: the change was too large to compute)\n`;
}

/**
 * The entry a path names, without following its last component: the parent is resolved to its
 * real path (and confined), the final name appended. A path ending in `.` or `..` names a
 * directory, which fs.delete refuses anyway.
 */
async function resolveEntry(root: WorkspaceRoot, input: string): Promise<{ rel: string; abs: string }> {
	if (input.includes("\0")) throw new InvalidPathError(`path ${displayPath(input)} contains a NUL byte`);
	const lexical = path.resolve(root.real, input);
	if (lexical === root.real || lexical === root.given) throw new FsPrimitiveError("the workspace root is a directory, not a file");
	const base = path.basename(input);
	if (base === "" || base === "." || base === ".." || input.endsWith("/.") || input.endsWith("/..")) {
		const { rel } = await resolveWorkspacePath(root, input);
		throw new FsPrimitiveError(rel === "." ? "the workspace root is a directory, not a file" : `${rel} is a directory; fs.delete removes only files`);
	}
	const parent = await resolveWorkspacePath(root, path.dirname(input));
	return { rel: parent.rel === "." ? base : `${parent.rel}/${base}`, abs: path.join(parent.abs, base) };
}

function removalDiff(rel: string, before: Buffer): string {
	if (before.includes(0)) return `--- a/${rel}\n+++ /dev/null\n(binary file deleted: no text diff)\n`;
	const patch = createTwoFilesPatch(`a/${rel}`, "/dev/null", before.toString("utf8"), "", undefined, undefined, {
		headerOptions: FILE_HEADERS_ONLY,
		timeout: DIFF_TIMEOUT_MS,
	});
	return patch ?? `--- a/${rel}\n+++ /dev/null\n(diff omitted: the file was too large to compute)\n`;
}

function describeType(type: string): string {
	switch (type) {
		case "dir":
			return "a directory";
		case "symlink":
			return "a symbolic link";
		case "file":
			return "a regular file";
		default:
			return "a special file";
	}
}

/** Runs a provider call and turns what it throws into a one-line error about the workspace path. */
async function guard<T>(rel: string, fn: () => Promise<T>): Promise<T> {
	try {
		return await fn();
	} catch (err) {
		throw describeFsError(rel, err);
	}
}

function describeFsError(rel: string, err: unknown): Error {
	if (err instanceof ProviderFileTooLargeError) {
		return new FileTooLargeError(`${rel} is ${err.size} bytes, more than the ${err.maxBytes} bytes allowed`);
	}
	if (err instanceof NotRegularFileError) return new FsPrimitiveError(`${rel} is ${describeType(err.type)}, not a regular file`);
	switch (errorCode(err)) {
		case "ENOENT":
			return new FsPrimitiveError(`${rel} does not exist`);
		case "ENOTDIR":
		// mkdir -p reports EEXIST when a file stands where a parent directory should be.
		case "EEXIST":
			return new FsPrimitiveError(`${rel}: a component of the path is not a directory`);
		case "EISDIR":
			return new FsPrimitiveError(`${rel} is a directory`);
		case "EACCES":
		case "EPERM":
			return new FsPrimitiveError(`${rel}: permission denied`);
		case "ENOSPC":
			return new FsPrimitiveError(`${rel}: no space left on the device`);
		case "EROFS":
			return new FsPrimitiveError(`${rel}: read-only filesystem`);
		default:
			return err instanceof Error ? err : new Error(String(err));
	}
}
