/**
 * Which workspace files are secret by their name alone, and the label a file read carries. A
 * pattern is matched on the workspace-relative path and on the file's basename, so `.env` is
 * secret at any depth; a pattern with a `/` also matches below any directory (`.aws/credentials`).
 */
import picomatch from "picomatch";
import { type Label, label } from "./label.js";

/** Files that hold credentials by convention. Matched case-insensitively: over-labelling fails closed. */
export const DEFAULT_SECRET_FILES: readonly string[] = [
	".env",
	".env.*",
	"*.pem",
	"*.key",
	"id_rsa*",
	"id_ed25519*",
	"id_ecdsa*",
	"id_dsa*",
	"*.p12",
	"*.pfx",
	"*.jks",
	"*.keystore",
	"*.kdbx",
	".npmrc",
	".pypirc",
	".netrc",
	"_netrc",
	".pgpass",
	".htpasswd",
	".git-credentials",
	"credentials",
	"credentials.json",
	"secrets.*",
	"*.secret",
	"*.tfvars",
	".aws/credentials",
	".docker/config.json",
	".kube/config",
	"service-account*.json",
];

/** Templates and public halves that share a secret file's name but hold nothing secret. */
export const NOT_SECRET_FILES: readonly string[] = [".env.example", ".env.sample", ".env.template", ".env.dist", "*.pub"];

type Test = (path: string) => boolean;

function compile(globs: readonly string[], ignore: readonly string[]): Test {
	if (globs.length === 0) return () => false;
	// A glob naming a directory path also holds below any directory (a home directory checked into the workspace).
	const expanded = globs.flatMap((g) => (g.includes("/") && !g.startsWith("**/") ? [g, `**/${g}`] : [g]));
	return picomatch([...expanded], { dot: true, nocase: true, ...(ignore.length > 0 ? { ignore: [...ignore] } : {}) });
}

function basename(rel: string): string {
	const slash = rel.lastIndexOf("/");
	return slash < 0 ? rel : rel.slice(slash + 1);
}

/** A test for workspace-relative paths: the default secret files, plus the host's `extra` globs. */
export function secretFileMatcher(extra: readonly string[] = []): (rel: string) => boolean {
	const defaults = compile(DEFAULT_SECRET_FILES, NOT_SECRET_FILES);
	// The host's globs are taken as written: the default exceptions do not narrow them.
	const host = compile(extra, []);
	return (rel: string) => {
		const path = rel.replace(/\\/g, "/").replace(/^\.\//, "");
		const name = basename(path);
		return defaults(path) || defaults(name) || host(path) || host(name);
	};
}

/** A workspace file's label by its name: secret or internal, trusted, sourced to that content. */
export function pathLabel(rel: string, sha256: string, isSecret: boolean): Label {
	return label(isSecret ? "secret" : "internal", "trusted", { kind: "file", ref: rel, sha256 });
}
