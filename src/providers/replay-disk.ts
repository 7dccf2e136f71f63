/**
 * The disk work of a replay on this machine's filesystem: copying the starting workspace, a
 * temporary state directory, and restoring before-images in the copy. The runtime's replay takes
 * it as its `ReplayDisk`; only this layer touches node:fs.
 */
import { cp, mkdir, mkdtemp, readFile, rm, stat, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The starting workspace named for a replay is not a directory. */
export class ReplaySourceError extends Error {
	override name = "ReplaySourceError";
}

export const nodeReplayDisk = {
	async copyDirectory(source: string): Promise<string> {
		const found = await stat(source).catch(() => undefined);
		if (!found?.isDirectory()) throw new ReplaySourceError(`workspace ${source} is not a directory; pass the starting workspace with --workspace <dir>`);
		const copy = await mkdtemp(join(tmpdir(), "warden-replay-ws-"));
		// Symlinks are copied as links, as they are: a replay must not follow them out of the copy.
		await cp(source, copy, { recursive: true, verbatimSymlinks: true, errorOnExist: false });
		return copy;
	},
	temporaryDirectory: (): Promise<string> => mkdtemp(join(tmpdir(), "warden-replay-state-")),
	async readFile(root: string, path: string): Promise<Buffer | undefined> {
		try {
			return await readFile(join(root, path));
		} catch (err) {
			if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
			throw err;
		}
	},
	async writeFile(root: string, path: string, bytes: Buffer): Promise<void> {
		await mkdir(dirname(join(root, path)), { recursive: true });
		await writeFile(join(root, path), bytes);
	},
	removeFile: (root: string, path: string): Promise<void> => unlink(join(root, path)),
	removeDirectory: (dir: string): Promise<void> => rm(dir, { recursive: true, force: true }),
};
