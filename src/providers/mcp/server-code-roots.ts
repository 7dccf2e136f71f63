/**
 * The folders holding a sandboxed stdio server's own code: for the program and each argument that
 * names an existing file, by its real path, the outermost node_modules it is installed in, else the
 * package it belongs to (the nearest folder with a package.json, so its node_modules come along),
 * else the file's folder. The sandbox shows them read-only; it already
 * lets a command read the machine, but its private /tmp would hide code installed under /tmp.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

export function serverCodeRoots(command: string, args: readonly string[], cwd: string | undefined): string[] {
	const roots = new Set<string>();
	for (const word of [command, ...args]) {
		const path = isAbsolute(word) ? word : cwd !== undefined && word.includes("/") ? resolve(cwd, word) : undefined;
		if (path === undefined || !isFile(path)) continue;
		// As named and as it really is: the program is started by the first, node loads modules by the second.
		for (const file of new Set([path, realpathSync(path)])) {
			const root = codeRoot(file);
			// Node loads modules by their real paths: a linked node_modules (a workspace, pnpm) is shown where it really is.
			const modules = join(root, "node_modules");
			for (const dir of [root, existsSync(modules) ? realpathSync(modules) : undefined]) {
				// A root holding /tmp would show the host's /tmp again over the private one.
				if (dir !== undefined && !holdsTmp(dir) && !dir.startsWith(`${root}/`)) roots.add(dir);
			}
		}
	}
	return [...roots];
}

function codeRoot(file: string): string {
	// Inside an installed package its dependencies may be hoisted anywhere up the tree: the outermost node_modules holds them all.
	const installed = file.indexOf("/node_modules/");
	if (installed !== -1) return file.slice(0, installed + "/node_modules".length);
	return packageRoot(dirname(file)) ?? dirname(file);
}

function holdsTmp(root: string): boolean {
	return root === "/" || root === "/tmp" || "/tmp/".startsWith(`${root}/`);
}

function isFile(path: string): boolean {
	try {
		return statSync(path).isFile();
	} catch {
		return false;
	}
}

function packageRoot(from: string): string | undefined {
	for (let dir = from; ; dir = dirname(dir)) {
		if (existsSync(join(dir, "package.json"))) return dir;
		if (dirname(dir) === dir) return undefined;
	}
}
