/** Warden's permission modes as ACP session modes, for `session/new`, `session/load` and `session/set_mode`. */
import type { SessionMode, SessionModeState } from "@agentclientprotocol/sdk";
import { isMorePermissive } from "../../config/mode-order.js";
import { PERMISSION_MODES, type PermissionMode } from "../../kernel/admission/types.js";

export const MODE_VIEWS: Readonly<Record<PermissionMode, Omit<SessionMode, "id">>> = {
	plan: { name: "Plan", description: "Reads and plans; changes nothing" },
	"read-only": { name: "Read only", description: "Reads the workspace; every write and command is refused" },
	"workspace-write": { name: "Workspace write", description: "Writes inside the workspace; commands run in the sandbox, the rest is asked" },
	"full-access": { name: "Full access", description: "No sandbox; hard-line rules, protected paths and the ceiling still hold" },
};

/** The modes the editor may choose: all of them, or those no looser than the one the host named. */
export function modeState(current: PermissionMode, cap?: PermissionMode): SessionModeState {
	const offered = cap === undefined ? PERMISSION_MODES : PERMISSION_MODES.filter((id) => id === current || !isMorePermissive(id, cap));
	return { currentModeId: current, availableModes: offered.map((id) => ({ id, ...MODE_VIEWS[id] })) };
}

export function isPermissionMode(value: string): value is PermissionMode {
	return (PERMISSION_MODES as readonly string[]).includes(value);
}
