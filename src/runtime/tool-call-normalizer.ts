/** Turns a model's raw tool calls into stable, decoded proposals. */
import type { HistoryToolCall, RawToolCall } from "../models/provider.js";

export interface ToolProposal {
	/** Stable within the session: `call_<turn>_<step>_<index>`. */
	id: string;
	name: string;
	/** Decoded arguments, or undefined when they could not be decoded. */
	args: unknown;
	/** Why the arguments could not be decoded. */
	decodeError?: string;
	/** The arguments as a JSON string, for the conversation history. */
	rawArguments: string;
	/** The id the provider issued, sent back to it in the history; never in Warden's evidence. */
	providerId?: string;
}

/**
 * The provider's ids for these calls, when each call has one of its own: ids missing or shared
 * within one response could not pair each result with its call, so Warden's ids are used instead.
 */
function providerIds(calls: readonly RawToolCall[]): (string | undefined)[] {
	const ids = calls.map((c) => (typeof c.id === "string" && c.id !== "" ? c.id : undefined));
	const unique = ids.every((id) => id !== undefined) && new Set(ids).size === ids.length;
	return unique ? ids : ids.map(() => undefined);
}

export function normalizeToolCalls(calls: readonly RawToolCall[], turn: number, step: number): ToolProposal[] {
	const ids = providerIds(calls);
	return calls.map((call, index) => {
		const proposal = decoded(call, `call_${turn}_${step}_${index + 1}`);
		const providerId = ids[index];
		return providerId === undefined ? proposal : { ...proposal, providerId };
	});
}

/** The call as the assistant message of the history carries it. */
export function historyCall(p: ToolProposal): HistoryToolCall {
	return p.providerId === undefined ? { id: p.id, name: p.name, arguments: p.rawArguments } : { id: p.id, provider_id: p.providerId, name: p.name, arguments: p.rawArguments };
}

function decoded(call: RawToolCall, id: string): ToolProposal {
	const name = typeof call.name === "string" ? call.name : String(call.name);
	if (typeof call.arguments === "string") {
		const raw = call.arguments;
		if (raw.trim() === "") return { id, name, args: {}, rawArguments: "{}" };
		try {
			return { id, name, args: JSON.parse(raw) as unknown, rawArguments: raw };
		} catch (err) {
			const detail = err instanceof Error ? err.message : String(err);
			return { id, name, args: undefined, decodeError: `arguments are not valid JSON (${detail})`, rawArguments: raw };
		}
	}
	const args = call.arguments ?? {};
	return { id, name, args, rawArguments: JSON.stringify(args) };
}
