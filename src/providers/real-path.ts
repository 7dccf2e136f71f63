/** The real path of a file or directory, for policy checks that must see through symlinks. */
import { realpathSync } from "node:fs";

/**
 * The canonical absolute path of `path` with every symlink followed, or undefined when it does not
 * exist or cannot be resolved (a dangling link, a loop, no permission). Synchronous because the
 * permission engine decides synchronously.
 */
export function realPathIfExists(path: string): string | undefined {
	try {
		return realpathSync.native(path);
	} catch {
		return undefined;
	}
}
