/**
 * Permission modes as capability presets. The tool-level engine still decides allow/ask/deny
 * first (Table 2 is unchanged for users); these grants are the boundary underneath it, which a
 * tool reached by another name cannot go around.
 *
 * read-only and plan: read anything in the workspace, run only read-only commands — the same
 * commands their mode rules allow (the read-only mode's shell row is read-only commands, so its
 * preset holds them too). workspace-write and full-access: read, write and delete in the
 * workspace, run any command. full-access also grants egress to any http(s) origin (`net:*`): its
 * shell already runs unconfined and may reach any host with curl, so refusing the same request made
 * through `web_fetch` (which the kernel admits, records and passes through the flow plane) would
 * only push the model towards the less governed route. The flow plane, not the grant, keeps a
 * secret from leaving. The other modes grant no `net:`: net.fetch is refused there unless a host
 * grant covers the origin. Host grants replace the preset, `net:` included.
 *
 * workspace-write and full-access may call configured MCP servers' tools (`mcp:*`, right `exec`)
 * and read their resources and prompts (right `read`); read-only and plan may do neither, whatever
 * a server says its tool does: annotations never loosen, and a read is a request the server acts on.
 *
 * Memory (`memory:<scope>/<namespace>`): every mode may recall (`read`); the modes that may write
 * the workspace may also write memory. A recalled record keeps the label it was written with, so
 * what memory may hold is the flow plane's business, not the grant's.
 *
 * Every mode may talk to any model (`llm:*`) and ask the host (`human:*`), both with the right
 * `egress`: each sends content out of the session (messages to a provider, a call's exact
 * arguments and diff to whoever answers). A deny grant or a narrower ceiling takes either away.
 */
import type { PermissionMode } from "../admission/types.js";
import type { GrantSpec } from "./capability.js";

export const MODE_PRESETS: Readonly<Record<PermissionMode, readonly GrantSpec[]>> = {
	"read-only": [
		{ id: "mode:read-only:fs", resource: "fs:**", rights: ["read"] },
		{ id: "mode:read-only:shell", resource: "shell:*", rights: ["exec"], constraints: { read_only_commands: true } },
		{ id: "mode:read-only:llm", resource: "llm:*", rights: ["egress"] },
		{ id: "mode:read-only:human", resource: "human:*", rights: ["egress"] },
		{ id: "mode:read-only:memory", resource: "memory:*", rights: ["read"] },
	],
	plan: [
		{ id: "mode:plan:fs", resource: "fs:**", rights: ["read"] },
		{ id: "mode:plan:shell", resource: "shell:*", rights: ["exec"], constraints: { read_only_commands: true } },
		{ id: "mode:plan:llm", resource: "llm:*", rights: ["egress"] },
		{ id: "mode:plan:human", resource: "human:*", rights: ["egress"] },
		{ id: "mode:plan:memory", resource: "memory:*", rights: ["read"] },
	],
	"workspace-write": [
		{ id: "mode:workspace-write:fs", resource: "fs:**", rights: ["read", "write", "delete"] },
		{ id: "mode:workspace-write:shell", resource: "shell:*", rights: ["exec"] },
		{ id: "mode:workspace-write:mcp", resource: "mcp:*", rights: ["exec", "read"] },
		{ id: "mode:workspace-write:llm", resource: "llm:*", rights: ["egress"] },
		{ id: "mode:workspace-write:human", resource: "human:*", rights: ["egress"] },
		{ id: "mode:workspace-write:memory", resource: "memory:*", rights: ["read", "write"] },
	],
	"full-access": [
		{ id: "mode:full-access:fs", resource: "fs:**", rights: ["read", "write", "delete"] },
		{ id: "mode:full-access:shell", resource: "shell:*", rights: ["exec"] },
		{ id: "mode:full-access:mcp", resource: "mcp:*", rights: ["exec", "read"] },
		{ id: "mode:full-access:net", resource: "net:*", rights: ["egress"] },
		{ id: "mode:full-access:llm", resource: "llm:*", rights: ["egress"] },
		{ id: "mode:full-access:human", resource: "human:*", rights: ["egress"] },
		{ id: "mode:full-access:memory", resource: "memory:*", rights: ["read", "write"] },
	],
};
