/**
 * What a tool may ask of the runtime about sub-agents. Tools sit below the runtime, so the
 * `agent` tool reaches child sessions only through this capability, handed to it per call.
 */

/** A bounded task for a child session, as the `agent` tool's arguments give it. */
export interface SubagentRequest {
	task: string;
	/** The child's own scripted plan steps; used only when the parent's model is scripted. */
	steps?: unknown[];
	/** Tool names from the parent's surface; default: all of them except `agent`. */
	tools?: string[];
	/** Default: the parent's mode. */
	mode?: string;
	/** Return at once with the child's id; the result is recorded when the child ends. */
	background?: boolean;
}

export interface SubagentOutcome {
	child: string;
	/** `running` for a background child. */
	status: "completed" | "failed" | "cancelled" | "running";
	/** The child's final answer (completed), else its one-line error. */
	text: string;
}

/** Spawns children of the calling session; refusals throw a ToolError with one line for the model. */
export interface SubagentSpawner {
	spawn(request: SubagentRequest): Promise<SubagentOutcome>;
}
