/**
 * Finds, installs on first use, and imports node-llama-cpp from a runtime directory of its own
 * (never Warden's node_modules: its optional platform packages are ~730 MB). The directory is
 * $WARDEN_LLAMA_RUNTIME, else <cache home>/warden/llama-runtime.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ModelError } from "../provider.js";
import type { NodeLlamaCpp } from "./node-llama-types.js";

export const LLAMA_RUNTIME_VERSION = "3.21.1";

/** The install script, shipped with the package (three levels up from src/ or dist/models/llama/). */
export const INSTALL_SCRIPT = fileURLToPath(new URL("../../../scripts/install-llama-runtime.mjs", import.meta.url));

export function llamaRuntimeDir(env: NodeJS.ProcessEnv = process.env): string {
	const explicit = env.WARDEN_LLAMA_RUNTIME?.trim();
	if (explicit) return resolve(explicit);
	const xdg = env.XDG_CACHE_HOME?.trim();
	const cache = xdg && isAbsolute(xdg) ? xdg : join(env.HOME?.trim() || homedir(), ".cache");
	return join(cache, "warden", "llama-runtime");
}

/** The entry file of node-llama-cpp in `dir`, or why there is none at the pinned version. */
export function locateLlamaRuntime(dir: string): { entry: string } | { missing: string } {
	let version: string | undefined;
	let entry: string;
	try {
		version = (JSON.parse(readFileSync(join(dir, "node_modules", "node-llama-cpp", "package.json"), "utf8")) as { version?: string }).version;
		entry = createRequire(join(dir, "package.json")).resolve("node-llama-cpp");
	} catch {
		return { missing: `node-llama-cpp is not installed in ${dir}` };
	}
	if (version !== LLAMA_RUNTIME_VERSION) return { missing: `${dir} holds node-llama-cpp ${version}, not ${LLAMA_RUNTIME_VERSION}` };
	return { entry };
}

export interface LoadRuntimeOptions {
	env?: NodeJS.ProcessEnv;
	/** Installs a missing runtime (the default); false fails with the reason instead. */
	install?: boolean;
	/** The one line said before installing. */
	notice?: (line: string) => void;
}

const loaded = new Map<string, Promise<NodeLlamaCpp>>();

/** Imports node-llama-cpp from the runtime directory, installing it first where allowed; once per directory per process. */
export function loadLlamaRuntime(options: LoadRuntimeOptions = {}): Promise<NodeLlamaCpp> {
	const dir = llamaRuntimeDir(options.env);
	let pending = loaded.get(dir);
	if (!pending) {
		pending = importRuntime(dir, options);
		loaded.set(dir, pending);
		pending.catch(() => loaded.delete(dir));
	}
	return pending;
}

async function importRuntime(dir: string, options: LoadRuntimeOptions): Promise<NodeLlamaCpp> {
	let found = locateLlamaRuntime(dir);
	if ("missing" in found) {
		if (options.install === false) throw new ModelError(`llama runtime unavailable: ${found.missing} (install it: node ${INSTALL_SCRIPT} ${dir})`);
		(options.notice ?? ((line) => process.stderr.write(`${line}\n`)))(`warden: installing node-llama-cpp ${LLAMA_RUNTIME_VERSION} (~83 MB) into ${dir} for llama: models`);
		await runInstaller(dir);
		found = locateLlamaRuntime(dir);
		if ("missing" in found) throw new ModelError(`llama runtime install left no usable runtime: ${found.missing}`);
	}
	return (await import(pathToFileURL(found.entry).href)) as NodeLlamaCpp;
}

function runInstaller(dir: string): Promise<void> {
	return new Promise((done, fail) => {
		const child = spawn(process.execPath, [INSTALL_SCRIPT, dir], { stdio: ["ignore", "ignore", "pipe"] });
		let stderr = "";
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		child.on("error", (error) => fail(new ModelError(`llama runtime install failed: ${error.message}`)));
		child.on("close", (code) => {
			if (code === 0) return done();
			const last = stderr.trim().split("\n").pop()?.replace(/^warden: /, "") || `installer exited with ${code}`;
			fail(new ModelError(`llama runtime install failed: ${last}`));
		});
	});
}
