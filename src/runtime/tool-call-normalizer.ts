/** Turns a model's raw tool calls into stable, decoded proposals. */
import type { RawToolCall } from "../models/provider.js";

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
}

export function normalizeToolCalls(calls: readonly RawToolCall[], turn: number, step: number): ToolProposal[] {
	return calls.map((call, index) => {
		const id = `call_${turn}_${step}_${index + 1}`;
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
	});
}
