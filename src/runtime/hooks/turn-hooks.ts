/**
 * The hooks around a turn: UserPromptSubmit before the input reaches the model (a block ends the
 * turn before any model call; context joins the input as labelled data, with what a SessionStart
 * hook left), Stop (SubagentStop in a sub-agent) when the model gives its answer — a block sends
 * the reason back to the model and the turn goes on — and Notification when the host is asked.
 */
import type { Label } from "../../kernel/flow/label.js";
import { type HookNote, hookNotes, withNotes } from "./hook-notes.js";
import type { SessionHooks } from "./session-hooks.js";

export type PromptOutcome = { blocked: string } | { content: string; label: Label };

/** The turn's input as the model will see it, or why a hook blocked it. */
export async function submitPrompt(hooks: SessionHooks | undefined, input: string, carries: Label): Promise<PromptOutcome> {
	if (!hooks) return { content: input, label: carries };
	const runs = await hooks.fire("UserPromptSubmit", { prompt: input });
	const blocked = runs.find((r) => r.verdict === "block");
	if (blocked) return { blocked: `prompt blocked by UserPromptSubmit hook \`${blocked.handler.command}\`: ${blocked.reason ?? "blocked"}` };
	const notes: HookNote[] = [...hookNotes(hooks.takePending()), ...hookNotes(runs)];
	return withNotes(input, carries, notes);
}

/** Undefined: the turn may end. Otherwise the message that sends the model back to work, and its label. */
export async function stopRequested(hooks: SessionHooks | undefined, answer: string, stopHookActive: boolean, carries: Label): Promise<{ content: string; label: Label } | undefined> {
	if (!hooks) return undefined;
	const event = hooks.stopEvent;
	const runs = await hooks.fire(event, { stop_hook_active: stopHookActive, last_assistant_message: answer });
	const notes = hookNotes(runs.filter((r) => r.verdict === "block"), true);
	if (notes.length === 0) return undefined;
	return withNotes(`A ${event} hook did not let the turn end yet; its reason follows.`, carries, notes);
}

/** The host is about to be asked about a call. */
export async function notifyAsk(hooks: SessionHooks | undefined, tool: string, callId: string): Promise<void> {
	if (!hooks) return;
	await hooks.fire("Notification", { message: `Warden needs your permission to use ${tool}`, notification_type: "permission_prompt", tool_name: tool }, { match: "permission_prompt", callId });
}
