/** Whether the user trusts a workspace's own config: its real path is in the user's trusted_projects. */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";

function realOrResolved(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return resolve(path);
	}
}

/** Compared by real path, so neither a symlink to a trusted directory nor a `..` spelling changes the answer. */
export function isTrustedProject(workspaceReal: string, trusted: readonly string[]): boolean {
	return trusted.some((entry) => realOrResolved(entry) === workspaceReal);
}
