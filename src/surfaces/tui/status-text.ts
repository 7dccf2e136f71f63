/** The status line: mode, model, context used against the window, budget use, sandbox profile. */
import { compactNumber } from "./budget-line.js";
import type { StatusInfo } from "./chat-state.js";

export function statusText(s: StatusInfo): string {
	const ctx = s.contextTokens === undefined ? "ctx –" : `ctx ${s.contextEstimated ? "~" : ""}${compactNumber(s.contextTokens)}${s.contextWindow ? `/${compactNumber(s.contextWindow)}` : ""}`;
	return `${s.mode} · ${s.model} · ${ctx} · ${s.budget} · sandbox ${s.sandbox}`;
}
