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
	// Answers by path: the globs are fixed here, so the answer depends on the text alone, and a
	// session reads the same few files again and again (four glob tests each). Bounded, so a walk
	// over a large tree cannot grow it without end.
	const answers = new Map<string, boolean>();
	return (rel: string) => {
		const known = answers.get(rel);
		if (known !== undefined) return known;
		const path = rel.replace(/\\/g, "/").replace(/^\.\//, "");
		const name = basename(path);
		const secret = defaults(path) || defaults(name) || host(path) || host(name);
		if (rel.length <= REMEMBERED_PATH_CHARS) {
			if (answers.size >= REMEMBERED_PATHS) answers.clear();
			answers.set(rel, secret);
		}
		return secret;
	};
}

/** How many paths' answers one matcher keeps, and the longest path it keeps one for. */
const REMEMBERED_PATHS = 4096;
const REMEMBERED_PATH_CHARS = 1024;

/** A workspace file's label by its name: secret or internal, trusted, sourced to that content. */
export function pathLabel(rel: string, sha256: string, isSecret: boolean): Label {
	return label(isSecret ? "secret" : "internal", "trusted", { kind: "file", ref: rel, sha256 });
}

/** Names a secret file usually has: what a shell glob is tried against, since it is expanded only when the command runs. */
const SECRET_FILE_SAMPLES: readonly string[] = [
	".env",
	".env.local",
	".env.production",
	"id_rsa",
	"id_ed25519",
	"id_ecdsa",
	"server.pem",
	"server.key",
	"credentials",
	"credentials.json",
	".npmrc",
	".netrc",
	".pgpass",
	".pypirc",
	".git-credentials",
	"secrets.yaml",
	"keystore.p12",
	"cert.pfx",
	"vault.kdbx",
	"prod.tfvars",
];

const GLOB_CHARS = /[*?[]/;

/**
 * Whether a shell glob (`.e*`, `keys/*.pem`, `*`) could name a secret file once the shell expands it:
 * it is matched as bash would (a leading `*` does not match a dot file) against the usual secret
 * names in the glob's own directory. Host-configured secret globs cannot be enumerated this way, and
 * a bare `*` is not taken to name a secret.
 */
export function globMayNameSecret(glob: string, isSecret: (rel: string) => boolean): boolean {
	if (!GLOB_CHARS.test(glob)) return false;
	const slash = glob.lastIndexOf("/");
	const dir = slash < 0 ? "" : glob.slice(0, slash + 1);
	// A bare `*` names every file alike; labelling all such output secret would make every listing
	// secret. What a program reads through it is for the sandbox to confine, not for this guess.
	if (/^\*+$/.test(glob.slice(slash + 1))) return false;
	const matches = picomatch(glob, { dot: false });
	return SECRET_FILE_SAMPLES.some((name) => {
		const candidate = `${dir.replace(GLOB_CHARS, "x")}${name}`;
		return matches(candidate) && isSecret(candidate);
	});
}
