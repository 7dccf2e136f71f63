/** How big the model's context is, when compaction starts, and how much room stays for the answer. */
import type { ModelProvider } from "../../models/provider.js";

/**
 * A window nothing states: small enough that every chat model in use today has at least this
 * many tokens, so compaction starts early rather than the provider refusing an oversized request.
 */
export const DEFAULT_CONTEXT_WINDOW = 8192;
/** Compaction starts when the next request would fill this share of the window. */
export const DEFAULT_COMPACT_AT = 0.8;
/** At most this many tokens are kept free for the answer; a small window keeps an eighth of itself. */
export const DEFAULT_ANSWER_RESERVE = 4096;

/** What a host or config may say about the context; each is checked by `contextSettings`. */
export interface ContextOptions {
	/** Tokens; used when the provider does not know its model's window. */
	window?: number;
	/** Share of the window (0 < x ≤ 1) the next request may fill before the oldest turns are summarised. */
	compactAt?: number;
	/** Tokens kept free for the model's answer. */
	reserve?: number;
}

export interface ContextSettings {
	window: number;
	windowSource: "provider" | "session" | "default";
	compactAt: number;
	reserve: number;
	/** The request size (tokens) past which the turn compacts first: the lower of the threshold and the window less the reserve. */
	limit: number;
}

export class ContextSettingsError extends Error {
	override name = "ContextSettingsError";
}

function positiveInteger(value: number | undefined, what: string): number | undefined {
	if (value === undefined) return undefined;
	if (!Number.isInteger(value) || value < 1) throw new ContextSettingsError(`${what} must be a positive whole number of tokens, got ${value}`);
	return value;
}

/** The provider's window, else the host's, else the default; bad values are one-line errors. */
export function contextSettings(model: Pick<ModelProvider, "contextWindow">, options: ContextOptions = {}): ContextSettings {
	const fromProvider = positiveInteger(model.contextWindow, "the provider's context window");
	const fromSession = positiveInteger(options.window, "context window");
	const window = fromProvider ?? fromSession ?? DEFAULT_CONTEXT_WINDOW;
	const windowSource = fromProvider !== undefined ? "provider" : fromSession !== undefined ? "session" : "default";
	const compactAt = options.compactAt ?? DEFAULT_COMPACT_AT;
	if (!(typeof compactAt === "number" && compactAt > 0 && compactAt <= 1)) throw new ContextSettingsError(`context compact_at must be a share of the window above 0 and at most 1, got ${compactAt}`);
	const reserve = positiveInteger(options.reserve, "context reserve") ?? Math.min(DEFAULT_ANSWER_RESERVE, Math.floor(window / 8));
	if (reserve >= window) throw new ContextSettingsError(`context reserve (${reserve} tokens) must be smaller than the window (${window} tokens)`);
	const limit = Math.min(Math.floor(window * compactAt), window - reserve);
	return { window, windowSource, compactAt, reserve, limit };
}
