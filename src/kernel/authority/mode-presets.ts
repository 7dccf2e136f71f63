/**
 * Permission modes as capability presets. The tool-level engine still decides allow/ask/deny
 * first (Table 2 is unchanged for users); these grants are the boundary underneath it, which a
 * tool reached by another name cannot go around.
 *
 * read-only and plan: read anything in the workspace, run only read-only commands — the same
 * commands their mode rules allow (the read-only mode's shell row is read-only commands, so its
 * preset holds them too). workspace-write and full-access: read, write and delete in the
 * workspace, run any command. Network egress is not granted: there is no net primitive yet.
 */
import type { PermissionMode } from "../admission/types.js";
import type { GrantSpec } from "./capability.js";

export const MODE_PRESETS: Readonly<Record<PermissionMode, readonly GrantSpec[]>> = {
	"read-only": [
		{ id: "mode:read-only:fs", resource: "fs:**", rights: ["read"] },
		{ id: "mode:read-only:shell", resource: "shell:*", rights: ["exec"], constraints: { read_only_commands: true } },
	],
	plan: [
		{ id: "mode:plan:fs", resource: "fs:**", rights: ["read"] },
		{ id: "mode:plan:shell", resource: "shell:*", rights: ["exec"], constraints: { read_only_commands: true } },
	],
	"workspace-write": [
		{ id: "mode:workspace-write:fs", resource: "fs:**", rights: ["read", "write", "delete"] },
		{ id: "mode:workspace-write:shell", resource: "shell:*", rights: ["exec"] },
	],
	"full-access": [
		{ id: "mode:full-access:fs", resource: "fs:**", rights: ["read", "write", "delete"] },
		{ id: "mode:full-access:shell", resource: "shell:*", rights: ["exec"] },
	],
};
