/**
 * SubagentStart: the parent's hooks hear that a child is about to start, before it opens. What
 * they add joins the child's task as labelled data, and the child's context starts with its label
 * (a project hook's words keep a child's context untrusted, as they would the parent's).
 */
import { join, type Label } from "../../kernel/flow/label.js";
import { hookNotes } from "./hook-notes.js";
import type { SessionHooks } from "./session-hooks.js";

export async function subagentStart(hooks: SessionHooks | undefined, task: string, initialContext: Label, callId: string, depth: number): Promise<{ task: string; initialContext: Label }> {
	if (!hooks) return { task, initialContext };
	const runs = await hooks.fire("SubagentStart", { agent_type: "agent", task, tool_use_id: callId, depth }, { match: "agent", callId });
	const notes = hookNotes(runs);
	return { task: [task, ...notes.map((n) => n.text)].join("\n\n"), initialContext: join(initialContext, ...notes.map((n) => n.label)) };
}
