/** How permissive each mode is, for "a project may only make the mode stricter". */
import type { PermissionMode } from "../kernel/admission/types.js";

/** read-only and plan admit the same kinds of effect (reads), so neither loosens the other. */
const RANK: Record<PermissionMode, number> = { "read-only": 0, plan: 0, "workspace-write": 1, "full-access": 2 };

export function isMorePermissive(mode: PermissionMode, than: PermissionMode): boolean {
	return RANK[mode] > RANK[than];
}
