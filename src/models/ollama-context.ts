/**
 * The context window of a model Ollama serves, from its own model info (`POST /api/show`): the
 * `num_ctx` its Modelfile sets, which is what Ollama allocates, else the architecture's
 * `<arch>.context_length`. Asked once when the provider is made; an Ollama that does not answer in
 * time, or answers without either figure, leaves the window unknown (the session's setting, else
 * the documented default, applies).
 */

/** How long the question may take before the window is left unknown. */
const SHOW_TIMEOUT_MS = 2000;

export async function ollamaContextWindow(openAiBaseUrl: string, model: string, fetchImpl: typeof fetch = fetch): Promise<number | undefined> {
	// The OpenAI-compatible API sits under /v1; Ollama's own API under the root.
	const root = openAiBaseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
	let body: unknown;
	try {
		const response = await fetchImpl(`${root}/api/show`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ model }),
			signal: AbortSignal.timeout(SHOW_TIMEOUT_MS),
		});
		if (!response.ok) return undefined;
		body = await response.json();
	} catch {
		return undefined;
	}
	return contextWindowFromShow(body);
}

/** Reads the window out of an `/api/show` answer; undefined when it holds no usable figure. */
export function contextWindowFromShow(body: unknown): number | undefined {
	if (typeof body !== "object" || body === null) return undefined;
	const { parameters, model_info: info } = body as { parameters?: unknown; model_info?: unknown };
	if (typeof parameters === "string") {
		const numCtx = /^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters);
		const value = numCtx ? Number(numCtx[1]) : Number.NaN;
		if (Number.isSafeInteger(value) && value > 0) return value;
	}
	if (typeof info === "object" && info !== null) {
		for (const [key, value] of Object.entries(info)) {
			if (key.endsWith(".context_length") && typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
		}
	}
	return undefined;
}
