/**
 * File contents through an editor instead of the disk: an ACP client that offers
 * `fs/read_text_file` / `fs/write_text_file` holds the user's unsaved buffers, so reads see what the
 * user sees and writes land in the open buffer. Paths are absolute and already confined and
 * admitted by the kernel; this module does no policy, it only moves text.
 */
import { FileTooLargeError, readFile, writeFileAtomic } from "./fs-provider.js";

/** What an editor offers; either half may be missing, and the disk serves that half. */
export interface EditorFiles {
	/** Named in the effect record of every write it performs (e.g. `acp-client`). */
	readonly name: string;
	readTextFile?(absolutePath: string): Promise<string>;
	writeTextFile?(absolutePath: string, content: string): Promise<void>;
}

export type FileReader = (absolutePath: string, opts: { maxBytes: number }) => Promise<Buffer>;
export type FileWriter = (absolutePath: string, data: Uint8Array, opts: { mode?: number }) => Promise<void>;

/** Reads through the editor when it offers reads, else from the disk; the size limit holds either way. */
export function fileReader(files: EditorFiles | undefined): FileReader {
	const read = files?.readTextFile?.bind(files);
	if (!read) return readFile;
	return async (absolutePath, opts) => {
		const bytes = Buffer.from(await read(absolutePath), "utf8");
		if (bytes.length > opts.maxBytes) throw new FileTooLargeError(bytes.length, opts.maxBytes);
		return bytes;
	};
}

/** Writes through the editor when it offers writes (it keeps the file's mode), else atomically to the disk. */
export function fileWriter(files: EditorFiles | undefined): FileWriter {
	const write = files?.writeTextFile?.bind(files);
	if (!write) return writeFileAtomic;
	return (absolutePath, data) => write(absolutePath, Buffer.from(data).toString("utf8"));
}
