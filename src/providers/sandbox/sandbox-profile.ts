/** What a sandboxed command may reach: the profile a mode preset chooses, and what a sandbox (bubblewrap or Landlock) needs to build it. */
import type { ProtectedRoot } from "./protected-layout.js";
import type { ProtectedMatch } from "./protected-scan.js";

export type SandboxProfileName = "read-only" | "workspace-write";

export interface SandboxProfile {
	name: SandboxProfileName;
	/** Real path of the workspace: the only place a workspace-write command can write. */
	workspace: string;
	/** Share the host's network. Only a command whose egress was admitted gets it. */
	network: boolean;
	/** The user's home, whose credential stores are hidden. */
	home?: string | undefined;
	/**
	 * Paths that stay read-only even inside the writable workspace (Warden's state and config
	 * dirs): bound read-only again only when they exist and lie under the workspace.
	 */
	protect?: readonly string[] | undefined;
	/**
	 * Workspace-relative paths that stay read-only whether or not they exist (the kernel's
	 * protected-paths registry): applied to the workspace and to nested repositories.
	 */
	protectedRoots?: readonly ProtectedRoot[] | undefined;
	/**
	 * The whole registry, as a predicate over workspace-relative paths: the protected paths found
	 * at any depth are held too, and what a command created among them is checked after it ends.
	 */
	protectedMatch?: ProtectedMatch | undefined;
	/** Where the command starts; default the workspace. Must lie inside it. */
	cwd?: string | undefined;
	/** A host directory to show as /tmp instead of a fresh empty one (the eval baselines keep /tmp across steps). */
	tmp?: string | undefined;
	/**
	 * Host folders shown read-only even where the private /tmp would hide them (a sandboxed MCP
	 * server's own code); never writable, and the workspace's own bind still comes after them.
	 */
	readable?: readonly string[] | undefined;
}

export interface SandboxInvocation {
	program: string;
	args: string[];
}

/** The confinement that runs a command. */
export type SandboxProviderName = "bwrap" | "landlock";
