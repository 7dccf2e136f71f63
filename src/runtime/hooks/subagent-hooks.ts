/** SubagentStart: the parent's hooks hear that a child is starting; what they add joins the child's task as labelled data. */
import { hookNotes } from "./hook-notes.js";
import type { SessionHooks } from "./session-hooks.js";

export async function subagentStart(hooks: SessionHooks | undefined, task: string, child: string, callId: string): Promise<string> {
	if (!hooks) return task;
	const runs = await hooks.fire("SubagentStart", { agent_id: child, agent_type: "agent", task }, { match: "agent", callId });
	return [task, ...hookNotes(runs).map((n) => n.text)].join("\n\n");
}
