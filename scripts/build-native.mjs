#!/usr/bin/env node
/**
 * Builds the Landlock helper (native/landlock-exec.c → dist/native/landlock-exec) from source with
 * the system's C compiler. Never fails the build: without a compiler (or on a system whose headers
 * lack Landlock) the helper is simply absent, and the Landlock sandbox says so when probed.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "native", "landlock-exec.c");
const outDir = join(root, "dist", "native");
const out = join(outDir, "landlock-exec");
/** Why there is no helper, read by the provider's probe. */
const why = join(outDir, "landlock-exec.unavailable");

mkdirSync(outDir, { recursive: true });
rmSync(why, { force: true });
if (process.platform !== "linux") {
	writeFileSync(why, `Landlock is Linux-only (this is ${process.platform})\n`);
	process.exit(0);
}
const compiler = process.env.CC || "cc";
const flags = ["-O2", "-Wall", "-Wextra", "-o", out, source];
// Static first, so the helper does not depend on the libc it was built against; dynamic when there is no static libc.
let built = spawnSync(compiler, ["-static", ...flags], { encoding: "utf8" });
if (built.error === undefined && built.status !== 0) built = spawnSync(compiler, flags, { encoding: "utf8" });
if (built.error !== undefined || built.status !== 0) {
	const reason = built.error !== undefined ? `no C compiler (${compiler}: ${built.error.message})` : `${compiler} failed: ${(built.stderr.trim().split("\n")[0] ?? "").slice(0, 300)}`;
	rmSync(out, { force: true });
	writeFileSync(why, `the Landlock helper could not be built: ${reason}\n`);
	console.error(`warden: Landlock sandbox helper not built (${reason}); shell commands will use bubblewrap or be asked`);
}
