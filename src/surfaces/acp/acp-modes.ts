/** Warden's permission modes as ACP session modes, for `session/new`, `session/load` and `session/set_mode`. */
import type { SessionMode, SessionModeState } from "@agentclientprotocol/sdk";
import { PERMISSION_MODES, type PermissionMode } from "../../kernel/admission/types.js";

export const MODE_VIEWS: Readonly<Record<PermissionMode, Omit<SessionMode, "id">>> = {
	plan: { name: "Plan", description: "Reads and plans; changes nothing" },
	"read-only": { name: "Read only", description: "Reads the workspace; every write and command is refused" },
	"workspace-write": { name: "Workspace write", description: "Writes inside the workspace; commands run in the sandbox, the rest is asked" },
	"full-access": { name: "Full access", description: "No sandbox; hard-line rules, protected paths and the ceiling still hold" },
};

export function modeState(current: PermissionMode): SessionModeState {
	return { currentModeId: current, availableModes: PERMISSION_MODES.map((id) => ({ id, ...MODE_VIEWS[id] })) };
}

export function isPermissionMode(value: string): value is PermissionMode {
	return (PERMISSION_MODES as readonly string[]).includes(value);
}
