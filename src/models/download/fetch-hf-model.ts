/** `llama:hf:<owner>/<repo>/<file>`: the file in the model cache, downloaded there first if it is not. */
import { downloadFile, type DownloadResult } from "./download-file.js";
import { resolveHfReference } from "./hf-reference.js";
import { type ProgressSink, terminalProgress } from "./progress-bar.js";

export interface FetchHfOptions {
	/** Pinned sha256; without it, the one Hugging Face states for the LFS file (X-Linked-ETag). */
	sha256?: string;
	/** A commit to download from instead of `main`. */
	revision?: string;
	/** Where the progress bar goes; drawn only when it is a terminal. */
	progressTo?: ProgressSink;
	signal?: AbortSignal;
}

export async function fetchHfModel(reference: string, env: NodeJS.ProcessEnv, options: FetchHfOptions = {}): Promise<DownloadResult> {
	const hf = resolveHfReference(reference, env, options.revision);
	const progress = options.progressTo ? terminalProgress(hf.file, options.progressTo) : undefined;
	const token = env.HF_TOKEN?.trim();
	try {
		return await downloadFile({
			url: hf.url,
			dest: hf.localPath,
			...(options.sha256 ? { sha256: options.sha256 } : {}),
			...(progress ? { onProgress: progress } : {}),
			...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
			...(options.signal ? { signal: options.signal } : {}),
		});
	} finally {
		progress?.done();
	}
}
