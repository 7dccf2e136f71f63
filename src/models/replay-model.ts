import { AbortError } from "./abort-error.js";
import { type ModelProvider, type ModelRequest, type ModelResponse, ModelError } from "./provider.js";

/** One recorded response, with the turn and step that received it. */
export interface RecordedResponse {
	turn: number;
	step: number;
	response: ModelResponse;
}

/**
 * A model that answers each request with the next response a recorded session received, in the
 * recorded turn, whatever the conversation says: a replay re-runs the session's decisions and
 * effects without calling any real model. Asking for more than was recorded is an error, never an
 * invented answer.
 */
export class ReplayModel implements ModelProvider {
	readonly locality = "in-process" as const;
	private turn: number | undefined;
	private readonly used = new Map<number, number>();

	/** `spec` is the recorded model's, so the session is admitted and labelled as the recorded one was. */
	constructor(
		readonly spec: string,
		private readonly responses: readonly RecordedResponse[],
	) {}

	/** The recorded turn the next requests belong to. */
	beginTurn(turn: number): void {
		this.turn = turn;
	}

	/** How many of a turn's recorded responses were asked for, and how many there are. */
	usage(turn: number): { used: number; recorded: number } {
		return { used: this.used.get(turn) ?? 0, recorded: this.responses.filter((r) => r.turn === turn).length };
	}

	async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		if (signal.aborted) throw new AbortError();
		// A summary is not a recorded response: taking one for it would shift every later answer of the turn.
		if (request.purpose === "compaction") throw new ModelError("replay model: a replay answers only the recorded steps, not compaction requests; the context stays whole");
		const turn = this.turn;
		if (turn === undefined) throw new ModelError("replay model: no recorded turn was begun before the first request");
		const recorded = this.responses.filter((r) => r.turn === turn);
		const used = this.used.get(turn) ?? 0;
		const next = recorded[used];
		if (next === undefined) {
			throw new ModelError(`replay model: turn ${turn} asked for model response ${used + 1}, but the recording holds ${recorded.length}`);
		}
		this.used.set(turn, used + 1);
		// A copy: the runtime may keep or change what it is handed, the recording must not change.
		const response = structuredClone(next.response);
		if (response.text !== "") request.onTextDelta?.(response.text);
		return response;
	}
}
