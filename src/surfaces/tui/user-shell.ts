/**
 * `!<command>`: a shell command the person runs, through the same governed pipeline as the
 * model's: its own session (model `user-shell`, a one-call plan of exactly that command) in the
 * chat's workspace and mode, decided, asked about, admitted and recorded like any other call.
 */
import { ScriptedModel } from "../../models/scripted.js";
import type { ModelProvider } from "../../models/provider.js";

export const USER_SHELL_MODEL = "user-shell";

/** The plan: the command as one shell call, then a closing line once its result is back. */
export function userShellModel(command: string): ModelProvider {
	return ScriptedModel.fromPlan({ steps: [{ tool_calls: [{ name: "shell", arguments: { command } }] }, { text: "" }] }, USER_SHELL_MODEL);
}
