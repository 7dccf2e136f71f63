/**
 * The protected paths the shell sandbox keeps read-only, from the host's registry: the literal
 * roots of the defaults and every literal path the host or user config added, each marked as a
 * directory when the registry protects what lies beneath it (so a stand-in for it is a directory).
 */
import type { ProtectedRoot } from "../../providers/sandbox/protected-layout.js";
import type { ProtectedMatch } from "../../providers/sandbox/protected-scan.js";
import { defaultProtectedPaths, type ProtectedPaths, SANDBOX_PROTECTED_ROOTS } from "./protected-paths.js";

export function sandboxProtectedRoots(registry: ProtectedPaths = defaultProtectedPaths()): ProtectedRoot[] {
	const roots = [...new Set([...SANDBOX_PROTECTED_ROOTS, ...registry.extraLiteralRoots()])];
	return roots.map((path) => ({ path, directory: registry.rules().some((r) => protectsBeneath(r.pattern, path)) }));
}

/** `<root>/**` or `**` + `/<root>/**`: the pattern protects what lies beneath the root. */
function protectsBeneath(pattern: string, root: string): boolean {
	if (!pattern.endsWith("/**")) return false;
	const base = pattern.slice(0, -"/**".length).replace(/^\*\*\//, "");
	return base.toLowerCase() === root.toLowerCase();
}

/** The whole registry as the sandbox's predicate: every rule held at every depth its walk reaches. */
export function sandboxProtectedMatch(registry: ProtectedPaths = defaultProtectedPaths()): ProtectedMatch {
	return (rel) => registry.covers(rel);
}
