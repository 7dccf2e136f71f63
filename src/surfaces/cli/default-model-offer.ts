/**
 * With no model configured: on a terminal, Warden offers its default model (downloaded once into
 * the model cache, then used whenever nothing else is configured); without one, a single line
 * says what to do instead.
 */
import { existsSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { DEFAULT_MODEL, type DefaultModel } from "../../models/download/default-model.js";
import { fetchHfModel } from "../../models/download/fetch-hf-model.js";
import { resolveHfReference } from "../../models/download/hf-reference.js";
import type { ProgressSink } from "../../models/download/progress-bar.js";
import { ModelError } from "../../models/provider.js";
import { UsageError } from "./cli-error.js";

export interface OfferIo {
	/** True when a person can answer: stdin and stderr are terminals. */
	interactive: boolean;
	ask(question: string): Promise<string>;
	/** Where the offer and the progress bar go (stderr: stdout may carry --json events). */
	err: ProgressSink;
}

const OTHER_WAYS =
	"pass --model: ollama:<model> (Ollama running), lmstudio:<model> (LM Studio's server on), openai:<model> with OPENAI_API_KEY, anthropic:<model> with ANTHROPIC_API_KEY, or a profile from the config";

export function noModelLine(model: DefaultModel = DEFAULT_MODEL): string {
	return `no model configured: ${OTHER_WAYS}; or run warden in a terminal to download the default model, ${model.title} (${gib(model.bytes)} GiB, ${model.licence})`;
}

/** The spec to run with: the default model, from the cache or downloaded now with the user's yes. Refuses in one line otherwise. */
export async function defaultModelSpec(env: NodeJS.ProcessEnv, io: OfferIo, model: DefaultModel = DEFAULT_MODEL): Promise<string> {
	const local = resolveHfReference(model.reference, env, model.revision).localPath;
	if (existsSync(local)) {
		io.err.write(`warden: no model configured; using the default model ${model.title} from ${local}\n`);
		return `llama:${local}`;
	}
	if (!io.interactive) throw new UsageError(noModelLine(model));
	io.err.write(
		[
			"No model is configured. Warden can download its default model and run it in-process:",
			`  ${model.title}: ${gib(model.bytes)} GiB, licence ${model.licence}, tool calling, 32K context, runs on a CPU in about 2 GB of memory`,
			`  into ${local}`,
			`  (or ${OTHER_WAYS})`,
			"",
		].join("\n"),
	);
	const answer = (await io.ask("Download it now? [y/N] ")).trim().toLowerCase();
	if (answer !== "y" && answer !== "yes") throw new UsageError(noModelLine(model));
	try {
		const result = await fetchHfModel(model.reference, env, { revision: model.revision, sha256: model.sha256, progressTo: io.err });
		io.err.write(`warden: ${model.title} saved to ${result.path} (sha256 checked)\n`);
		return `llama:${result.path}`;
	} catch (error) {
		if (error instanceof ModelError) throw new UsageError(`${error.message}; or ${OTHER_WAYS}`);
		throw error;
	}
}

/** The offer as the CLI makes it, on this process's terminal. */
export function terminalOfferIo(): OfferIo {
	return {
		interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
		err: process.stderr,
		ask: async (question) => {
			const rl = createInterface({ input: process.stdin, output: process.stderr });
			try {
				return await rl.question(question);
			} finally {
				rl.close();
			}
		},
	};
}

function gib(bytes: number): string {
	return (bytes / 1024 ** 3).toFixed(2);
}
