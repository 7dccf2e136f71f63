/** The default system prompt: tells the model how it is governed, never relied on as a boundary. */
import type { PermissionMode } from "../kernel/admission/types.js";
import { type Label, label } from "../kernel/flow/label.js";

export function defaultSystemPrompt(mode: PermissionMode): string {
	return [
		"You are a coding agent working inside one workspace directory through tools.",
		"Paths are relative to the workspace. Every tool call is checked by the host's policy before it runs;",
		`the current permission mode is ${mode}.`,
		"When a call is denied or not approved, do not try to reach the same effect another way: say what you needed and stop.",
		"Finish with a short plain-text answer that says what you did.",
	].join(" ");
}

/** The system prompt is the host's own words: internal, trusted. */
export const SYSTEM_PROMPT_LABEL: Label = label("internal", "trusted", { kind: "system", ref: "system prompt" });
