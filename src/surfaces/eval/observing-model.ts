/**
 * A model wrapper for the full runner: at every complete() — that is, after one step's tool calls
 * have all ended and before the next step's begin — it photographs the world, notes the sink log's
 * position, and keeps the request's messages. Effects are thereby attributed to their step.
 */
import type { Message, ModelProvider, ModelRequest, ModelResponse } from "../../models/provider.js";
import type { SinkServer } from "./sink-server.js";
import { snapshotWorld, type WorldSnapshot } from "./world-snapshot.js";

export interface Observation {
	world: WorldSnapshot;
	/** Sink log position at the time. */
	sinkMark: number;
	/** The messages of the model request made at that moment. */
	messages: Message[];
}

export class ObservingModel implements ModelProvider {
	/** One entry per model request: index k is taken before plan step k + 1 runs. */
	readonly observations: Observation[] = [];

	constructor(
		private readonly inner: ModelProvider,
		private readonly roots: readonly string[],
		private readonly sink: SinkServer,
	) {}

	get spec(): string {
		return this.inner.spec;
	}

	/** Watching a model does not move it: the wrapped one's locality is this one's. */
	get locality(): ModelProvider["locality"] {
		return this.inner.locality;
	}

	async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
		const world = await snapshotWorld(this.roots);
		this.observations.push({ world, sinkMark: this.sink.mark, messages: structuredClone(request.messages) });
		return this.inner.complete(request, signal);
	}
}
