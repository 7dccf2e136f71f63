/** Refusals of the flow plane: each one line, naming the data's label, the sink and why. */
import type { Label } from "./label.js";

/** An egress primitive was refused by flow admission; nothing left the host. */
export class FlowDeniedError extends Error {
	override name = "FlowDeniedError";

	constructor(
		readonly operation: string,
		readonly sink: string,
		readonly label: Label,
		readonly why: string,
	) {
		super(`flow refused: ${operation} to ${sink}: ${why}`);
	}

	toRecord(): Record<string, unknown> {
		return { operation: this.operation, sink: this.sink, label: this.label, why: this.why };
	}
}

/** An exact release does not cover this use: spent, expired, or bound to another sink, payload or ceiling. */
export class ReleaseRefusedError extends Error {
	override name = "ReleaseRefusedError";
}

/** A sink rule or flow setting given by the host is malformed. */
export class FlowConfigError extends Error {
	override name = "FlowConfigError";
}
