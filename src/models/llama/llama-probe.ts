/**
 * Loads a GGUF file once in a child process before Warden loads it in its own: llama.cpp aborts
 * the whole process on some malformed models (a missing required key), and a run must end with a
 * one-line error, not a crash. A file that passed is remembered by path, size and mtime.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ModelError } from "../provider.js";

const CHILD = `
const [entry, modelPath] = process.argv.slice(2);
const { getLlama } = await import(entry);
const llama = await getLlama({ gpu: false, build: "never", skipDownload: true, maxThreads: 1, logLevel: "error", progressLogs: false });
const model = await llama.loadModel({ modelPath, gpuLayers: 0 });
process.stdout.write(JSON.stringify({ trainContextSize: model.trainContextSize }));
await model.dispose();
`;

/** Where passed probes are remembered (inside the runtime directory). */
export function probeCacheDir(runtimeDir: string): string {
	return join(runtimeDir, "probed");
}

/** Throws a one-line ModelError when `modelPath` cannot be loaded; resolves when it can. */
export async function probeModel(entry: string, modelPath: string, runtimeDir: string): Promise<void> {
	let identity: string;
	try {
		const info = await stat(modelPath);
		if (!info.isFile()) throw new ModelError(`llama model ${modelPath} is not a file`);
		identity = createHash("sha256").update(`${modelPath}\0${info.size}\0${info.mtimeMs}`).digest("hex");
	} catch (error) {
		if (error instanceof ModelError) throw error;
		throw new ModelError(`llama model ${modelPath} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
	}
	const marker = join(probeCacheDir(runtimeDir), identity);
	if (existsSync(marker)) return;
	const outcome = await runChild(await childScript(runtimeDir), entry, modelPath);
	if (!outcome.ok) throw new ModelError(`llama model ${modelPath} failed to load: ${outcome.why}`);
	await mkdir(probeCacheDir(runtimeDir), { recursive: true });
	await writeFile(marker, `${modelPath}\n`);
}

/** The child's code, as a file: node-llama-cpp forks helpers with the parent's execArgv, which an `-e` script would hijack. */
async function childScript(runtimeDir: string): Promise<string> {
	const file = join(runtimeDir, "probe-child.mjs");
	await writeFile(file, CHILD);
	return file;
}

function runChild(script: string, entry: string, modelPath: string): Promise<{ ok: true } | { ok: false; why: string }> {
	return new Promise((done) => {
		const child = spawn(process.execPath, [script, pathToFileURL(entry).href, modelPath], { stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d: Buffer) => {
			stdout += d.toString();
		});
		child.stderr.on("data", (d: Buffer) => {
			stderr += d.toString();
		});
		child.on("error", (error) => done({ ok: false, why: error.message }));
		child.on("close", (code, signal) => {
			if (code === 0 && stdout.startsWith("{")) return done({ ok: true });
			done({ ok: false, why: reason(stderr, code, signal) });
		});
	});
}

/** The line of llama.cpp's output that names the problem, else how the child ended. */
function reason(stderr: string, code: number | null, signal: NodeJS.Signals | null): string {
	const lines = stderr.split("\n").map((l) => l.trim()).filter(Boolean);
	const named = lines.find((l) => /key not found|error loading model|failed to load|invalid|not a gguf|unknown/i.test(l)) ?? lines.find((l) => /error/i.test(l));
	const ending = signal ? `the loader was killed by ${signal}` : `the loader exited with ${code}`;
	return named ? `${named.replace(/^\[node-llama-cpp\]\s*/, "").slice(0, 300)} (${ending})` : ending;
}
