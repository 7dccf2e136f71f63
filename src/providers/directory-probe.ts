/** Checks that a directory exists and returns its real path. */
import { realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";

export class DirectoryProbeError extends Error {
	override name = "DirectoryProbeError";
}

export async function realDirectory(path: string, what: string): Promise<string> {
	const absolute = resolve(path);
	let real: string;
	try {
		real = await realpath(absolute);
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		throw new DirectoryProbeError(code === "ENOENT" ? `${what} ${absolute} does not exist` : `${what} ${absolute} cannot be used (${code ?? String(err)})`);
	}
	const info = await stat(real);
	if (!info.isDirectory()) throw new DirectoryProbeError(`${what} ${absolute} is not a directory`);
	return real;
}
