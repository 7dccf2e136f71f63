/**
 * Where the host's PATH finds a program, for the permission engine's identity check (PolicyContext's
 * `resolveProgram`). Synchronous, like the engine. A relative or empty entry, or one inside the
 * workspace, that comes before the match makes the answer unknown: what bash runs would then depend
 * on files the agent can write. Answers are cached, which is sound because only entries outside the
 * workspace are ever answered from.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

const CACHE_LIMIT = 512;

function search(name: string, entries: readonly string[], workspace: string): string | undefined {
	for (const entry of entries) {
		if (entry === "" || !isAbsolute(entry)) return undefined;
		const dir = resolve(entry);
		if (dir === workspace || dir.startsWith(`${workspace}/`)) return undefined;
		const candidate = join(dir, name);
		try {
			if (!statSync(candidate).isFile()) continue;
			accessSync(candidate, constants.X_OK);
			return candidate;
		} catch {
			// Not there, or not executable: bash would go on to the next entry too.
		}
	}
	return undefined;
}

/** A resolver over `pathVariable` (the PATH shell commands run with) for a session in `workspace`. */
export function programLookup(pathVariable: string | undefined, workspace: string): (name: string) => string | undefined {
	const entries = (pathVariable ?? "").split(delimiter);
	const cache = new Map<string, string | undefined>();
	return (name) => {
		if (name === "" || name.includes("/")) return undefined;
		if (cache.has(name)) return cache.get(name);
		const found = search(name, entries, workspace);
		if (cache.size >= CACHE_LIMIT) cache.clear();
		cache.set(name, found);
		return found;
	};
}
