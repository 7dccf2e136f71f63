#!/usr/bin/env node
/**
 * Installs the embedded model runtime (node-llama-cpp with its prebuilt linux-x64 binaries only)
 * into a directory of its own, outside node_modules: its optional platform packages (~730 MB)
 * never enter Warden's own install. Usage: node scripts/install-llama-runtime.mjs <dir>
 * Prints one line; exits non-zero with a one-line error when the install fails.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export const LLAMA_RUNTIME_VERSION = "3.21.1";
const PACKAGES = [`node-llama-cpp@${LLAMA_RUNTIME_VERSION}`, `@node-llama-cpp/${process.platform}-${process.arch}@${LLAMA_RUNTIME_VERSION}`];

/** True when `dir` already holds the pinned runtime and its binaries for this platform. */
export function llamaRuntimeInstalled(dir) {
	const pinned = (path) => {
		try {
			return JSON.parse(readFileSync(join(dir, "node_modules", path, "package.json"), "utf8")).version === LLAMA_RUNTIME_VERSION;
		} catch {
			return false;
		}
	};
	return pinned("node-llama-cpp") && pinned(`@node-llama-cpp/${process.platform}-${process.arch}`);
}

/** Installs into a fresh sibling directory, then renames it into place, so a cut install never looks complete. */
export function installLlamaRuntime(dir) {
	const target = resolve(dir);
	if (llamaRuntimeInstalled(target)) return { installed: false, dir: target };
	if (process.platform !== "linux" || process.arch !== "x64") {
		throw new Error(`the embedded model runtime is prebuilt for linux-x64 only, not ${process.platform}-${process.arch}`);
	}
	mkdirSync(dirname(target), { recursive: true });
	const staging = mkdtempSync(`${target}.installing-`);
	try {
		writeFileSync(join(staging, "package.json"), `${JSON.stringify({ name: "warden-llama-runtime", private: true, type: "module" }, null, 2)}\n`);
		const npm = process.platform === "win32" ? "npm.cmd" : "npm";
		const result = spawnSync(npm, ["install", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error", ...PACKAGES], {
			cwd: staging,
			encoding: "utf8",
			stdio: ["ignore", "pipe", "pipe"],
		});
		if (result.error) throw new Error(`could not run npm: ${result.error.message}`);
		if (result.status !== 0) {
			const last = `${result.stderr}`.trim().split("\n").filter(Boolean).pop() ?? `npm exited with ${result.status}`;
			throw new Error(`npm install ${PACKAGES.join(" ")} failed: ${last}`);
		}
		if (!llamaRuntimeInstalled(staging)) throw new Error("npm install finished but node-llama-cpp is not in place");
		// Another process may have finished first; its copy is as good as ours.
		if (llamaRuntimeInstalled(target)) return { installed: false, dir: target };
		rmSync(target, { recursive: true, force: true });
		renameSync(staging, target);
		return { installed: true, dir: target };
	} finally {
		rmSync(staging, { recursive: true, force: true });
	}
}

const invokedDirectly = process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname);
if (invokedDirectly) {
	const dir = process.argv[2];
	if (!dir) {
		process.stderr.write("usage: node scripts/install-llama-runtime.mjs <dir>\n");
		process.exit(2);
	}
	try {
		const { installed, dir: where } = installLlamaRuntime(dir);
		process.stdout.write(installed ? `installed node-llama-cpp ${LLAMA_RUNTIME_VERSION} into ${where}\n` : `node-llama-cpp ${LLAMA_RUNTIME_VERSION} already in ${where}\n`);
	} catch (error) {
		process.stderr.write(`warden: ${error instanceof Error ? error.message : String(error)}\n`);
		process.exit(1);
	}
}
