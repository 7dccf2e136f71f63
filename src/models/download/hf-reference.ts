/**
 * `llama:hf:<owner>/<repo>/<file>` → the file's download URL on Hugging Face (or the endpoint
 * WARDEN_HF_ENDPOINT / HF_ENDPOINT names) and where it lands in the model cache.
 */
import { join } from "node:path";
import { ModelError } from "../provider.js";
import { modelCacheDir } from "./model-cache.js";

export const HF_DEFAULT_ENDPOINT = "https://huggingface.co";

export interface HfFile {
	repo: string;
	file: string;
	url: string;
	/** In the cache: <cache>/hf/<owner>/<repo>/<file>. */
	localPath: string;
}

/** `revision` pins a commit (the default model does, so its pinned sha256 always matches); else `main`. */
export function resolveHfReference(reference: string, env: NodeJS.ProcessEnv, revision = "main"): HfFile {
	const parts = reference.trim().split("/");
	const bad = parts.length < 3 || parts.some((part) => part === "" || part === "." || part === ".." || part.includes("\\"));
	if (bad) throw new ModelError(`hf:${reference} is not <owner>/<repo>/<file.gguf> (e.g. hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf)`);
	if (!parts[parts.length - 1]!.toLowerCase().endsWith(".gguf")) throw new ModelError(`hf:${reference} names no .gguf file`);
	const endpoint = (env.WARDEN_HF_ENDPOINT?.trim() || env.HF_ENDPOINT?.trim() || HF_DEFAULT_ENDPOINT).replace(/\/+$/, "");
	if (!/^https?:\/\/[^/]/i.test(endpoint) || !URL.canParse(endpoint)) throw new ModelError(`WARDEN_HF_ENDPOINT "${endpoint}" is not an http(s) URL`);
	const repo = parts.slice(0, 2).join("/");
	const file = parts.slice(2).join("/");
	const url = `${endpoint}/${parts.slice(0, 2).map(encodeURIComponent).join("/")}/resolve/${encodeURIComponent(revision)}/${parts.slice(2).map(encodeURIComponent).join("/")}`;
	return { repo, file, url, localPath: join(modelCacheDir(env), "hf", ...parts) };
}
