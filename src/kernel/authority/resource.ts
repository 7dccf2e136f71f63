/**
 * Canonical resources: the typed identifiers every capability check is made on. A check never
 * sees a path or a command as the model wrote it, only the form below.
 */
import type { ParsedShell } from "../admission/shell/shell-types.js";
import { isReadOnlyCommand } from "../admission/command-classes.js";
import { type IdentityScope, untrustedProgram } from "../admission/program-identity.js";

export const RIGHTS = ["read", "write", "delete", "exec", "egress", "admin"] as const;
export type Right = (typeof RIGHTS)[number];

export const RESOURCE_KINDS = ["fs", "shell", "net", "llm", "human", "mcp", "memory"] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** One (resource, right) a primitive asks for, with the facts a grant's constraints are checked on. */
export interface AccessRequest {
	resource: string;
	right: Right;
	/** Bytes the access reads or writes, when known before it starts. */
	bytes?: number;
	/** Shell only: the sub-command is known to be read-only. */
	readOnlyCommand?: boolean;
}

/** The kind of a canonical resource or pattern (`fs` for `fs:src/a.ts`), or undefined when it has none. */
export function resourceKind(text: string): ResourceKind | undefined {
	const colon = text.indexOf(":");
	if (colon < 0) return undefined;
	const kind = text.slice(0, colon);
	return (RESOURCE_KINDS as readonly string[]).includes(kind) ? (kind as ResourceKind) : undefined;
}

/** `fs:<path>` from a workspace-relative real path (`.` for the workspace itself), as the kernel resolves it. */
export function fsResource(rel: string): string {
	return `fs:${rel}`;
}

/**
 * One `shell:<normalized command>` per sub-command, wrappers looked through and flags normalized,
 * so `env nice /bin/rm -fr x` is checked as `shell:rm -f -r x`. A text that yields no command at
 * all is checked as written, trimmed. With an identity scope, a command counts as read-only only
 * when its program is the system's (program-identity.ts).
 */
export function shellRequests(parsed: ParsedShell, identity?: IdentityScope): AccessRequest[] {
	if (parsed.commands.length === 0) return [{ resource: `shell:${parsed.source.trim()}`, right: "exec", readOnlyCommand: false }];
	return parsed.commands.map((c) => ({
		resource: `shell:${c.text}`,
		right: "exec" as const,
		// Read-only as the permission engine means it: the system's program too, when the host can tell.
		readOnlyCommand: !c.opaque && !parsed.malformed && isReadOnlyCommand(c) && (identity === undefined || untrustedProgram(c, parsed, identity) === undefined),
	}));
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443" };

/** `net:<scheme>://<host>:<port>`, host lower-cased, default port made explicit; path and credentials dropped. */
export function netResource(url: string): string {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new RangeError(`${JSON.stringify(url)} is not a URL`);
	}
	const port = parsed.port || DEFAULT_PORTS[parsed.protocol];
	if (port === undefined || parsed.hostname === "") throw new RangeError(`${JSON.stringify(url)} has no host and port Warden can name`);
	return `net:${parsed.protocol}//${parsed.hostname.toLowerCase()}:${port}`;
}

export function llmResource(profile: string): string {
	return `llm:${profile}`;
}

export function humanResource(channel: string): string {
	return `human:${channel}`;
}

/** `mcp:<server>/<tool>`: the server's name as configured, the tool's name as the server lists it. */
export function mcpResource(server: string, tool: string): string {
	return `mcp:${server}/${tool}`;
}

/** `memory:<scope>/<namespace>`: one namespace of one memory scope (user, project or session). */
export function memoryResource(scope: string, namespace: string): string {
	return `memory:${scope}/${namespace}`;
}
