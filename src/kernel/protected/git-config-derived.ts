/**
 * Protected paths that a repository's own config makes: `core.hooksPath = .githooks` turns
 * `.githooks/pre-commit` into a hook, `include.path` / `includeIf.<cond>.path` into a second config,
 * and an executable key (`core.fsmonitor`, `filter.*.clean`, a `!`-alias, …) whose program lies in
 * the workspace into code the user's next git command runs. The config itself is protected, so
 * these paths cannot change behind a session's back; they are read again per call from the config
 * as it is on disk (cached by the identity of every file read), and enforced like registry rules.
 *
 * Paths resolve as git resolves them: an include relative to the file that includes it, a hooks
 * path and a program relative to the repository's worktree top, `~/` from the home directory.
 * `includeIf` is followed whatever its condition (fail closed: whether it holds can change without
 * the config changing). Paths outside the workspace are not the workspace's to protect.
 *
 * A config git would refuse (a bad line, an include chain deeper than git's 10) is not guessed at:
 * every path of that repository is held instead, with why. Git itself stops on such a config, so
 * the repository was unusable to the person already; nothing ordinary is lost that worked before.
 */
import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { gitExecKey } from "../admission/git-exec-config.js";
import { entryKey, GitConfigSyntaxError, parseGitConfig } from "./git-config-parse.js";
import type { ProtectedPathRule } from "./protected-paths.js";

export interface RepositoryConfigScope {
	/** The workspace's real absolute path. */
	workspace: string;
	home: string;
	/** Workspace-relative worktree tops of the repositories to read: `""` for the workspace's own. */
	repositories: readonly string[];
}

/** Git's own bound on nested includes. */
export const MAX_INCLUDE_DEPTH = 10;
/** A config larger than this is not read; the repository is held whole instead. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Keys handled on their own below, not as "a program". */
const INCLUDE = /^include(?:if\..*)?\.path$/;
const NOT_A_PROGRAM = new Set(["protocol.allow"]);
const DIRECTORY_KEYS = new Set(["core.hookspath", "init.templatedir"]);

interface Derivation {
	rules: ProtectedPathRule[];
	/** Every file looked at, with its identity then: the cache holds while all are unchanged. */
	seen: Map<string, string>;
}

function identity(path: string): string {
	try {
		const st = statSync(path);
		return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
	} catch {
		return "missing";
	}
}

const display = (workspace: string, abs: string) => {
	const rel = relative(workspace, abs).split(sep).join("/");
	return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
};

/** The workspace-relative form of `abs`, or undefined when it lies outside. */
function inside(workspace: string, abs: string): string | undefined {
	const rel = relative(workspace, abs);
	if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
	return rel.split(sep).join("/");
}

/** A literal path as a picomatch pattern: glob characters escaped. */
const literal = (rel: string) => rel.replace(/[*?[\]{}()!+@\\]/g, (c) => `\\${c}`);

function expand(value: string, base: string, home: string): string {
	if (value === "~" || value.startsWith("~/")) return join(home, value.slice(1));
	return resolve(base, value);
}

/**
 * The paths a command value names: every word (after a leading `!`, quotes removed, the part after
 * a `key=` or `--option=` taken) that is a path. Not only the first: `sh scripts/x.sh` runs the script. A
 * bare name is looked up on PATH, not in the workspace.
 */
function pathWords(value: string): string[] {
	const words = value.replace(/^!/, "").match(/'[^']*'|"[^"]*"|[^\s;&|<>()'"]+/g) ?? [];
	return words
		.map((w) => (w.startsWith("'") || w.startsWith('"') ? w.slice(1, -1) : w.replace(/^[^=/]*=/, "")))
		.filter((w) => w !== "" && (w.includes("/") || w === "~" || w.startsWith("~/")));
}

/** What `abs` really names, though it may not exist yet: its nearest existing ancestor resolved, the rest appended. */
function realTarget(abs: string): string {
	const rest: string[] = [];
	for (let dir = abs; ; dir = dirname(dir)) {
		try {
			return join(realpathSync(dir), ...rest.reverse());
		} catch {
			if (dirname(dir) === dir) return abs;
			rest.push(basename(dir));
		}
	}
}

/** The git dir of the worktree at `top`, or undefined when there is no repository there. */
function gitDirOf(top: string): string | undefined {
	const dotGit = join(top, ".git");
	try {
		const st = lstatSync(dotGit);
		if (st.isDirectory()) return dotGit;
		if (!st.isFile() || st.size > 4096) return undefined;
		const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"));
		return m ? resolve(top, m[1]!) : undefined;
	} catch {
		return undefined;
	}
}

/** The config files git reads for a repository: its git dir's, its common dir's, the worktree's. */
function configFilesOf(gitDir: string, seen: Map<string, string>): string[] {
	const files = [join(gitDir, "config"), join(gitDir, "config.worktree")];
	const commondir = join(gitDir, "commondir");
	seen.set(commondir, identity(commondir));
	try {
		const common = resolve(gitDir, readFileSync(commondir, "utf8").trim());
		files.unshift(join(common, "config"), join(common, "config.worktree"));
	} catch {
		// No commondir: the git dir is a whole one.
	}
	return files;
}

function derive(scope: RepositoryConfigScope): Derivation {
	const { workspace, home } = scope;
	const rules: ProtectedPathRule[] = [];
	const seen = new Map<string, string>();
	const added = new Set<string>();
	const protect = (abs: string, reason: string, source: string, directory: boolean) => {
		// Git follows a symlink there; the fs primitives check the real target: both are held.
		for (const path of new Set([abs, realTarget(abs)])) {
			const rel = inside(workspace, path);
			if (rel === undefined) continue;
			for (const pattern of directory ? [literal(rel), `${literal(rel)}/**`] : [literal(rel)]) {
				if (added.has(pattern)) continue;
				added.add(pattern);
				rules.push({ pattern, reason, source });
			}
		}
	};
	for (const repo of scope.repositories) {
		const top = repo === "" ? workspace : join(workspace, repo);
		seen.set(join(top, ".git"), identity(join(top, ".git")));
		const gitDir = gitDirOf(top);
		if (gitDir === undefined) continue;
		const holdWhole = (file: string, why: string) => {
			const rel = inside(workspace, top);
			const reason = `its git config ${display(workspace, file)} cannot be read as git reads it (${why}): what git would run from this repository cannot be known, so all of it is held`;
			const source = `repository config ${display(workspace, file)}`;
			if (rel === undefined) rules.push({ pattern: "**", reason, source });
			else protect(top, reason, source, true);
		};
		/** What an executable key's value names in the workspace, if anything. */
		const named = (key: string, value: string, why: string, source: string) => {
			const lower = key.toLowerCase();
			const row = gitExecKey(key);
			if (row === undefined || NOT_A_PROGRAM.has(lower) || INCLUDE.test(lower)) return;
			const reason = `${why}: ${row.reason}`;
			if (DIRECTORY_KEYS.has(lower) || lower === "core.attributesfile") {
				protect(expand(value, top, home), reason, source, DIRECTORY_KEYS.has(lower));
				return;
			}
			for (const word of pathWords(value)) protect(expand(word, top, home), reason, source, false);
		};
		const read = (file: string, depth: number, chain: readonly string[]): boolean => {
			seen.set(file, identity(file));
			let text: string;
			try {
				const st = statSync(file);
				if (!st.isFile()) return true;
				if (st.size > MAX_CONFIG_BYTES) {
					holdWhole(file, `larger than ${MAX_CONFIG_BYTES} bytes`);
					return false;
				}
				text = readFileSync(file, "utf8");
			} catch {
				// Git skips a config or an include that is not there.
				return true;
			}
			let entries: ReturnType<typeof parseGitConfig>;
			try {
				entries = parseGitConfig(text);
			} catch (err) {
				holdWhole(file, err instanceof GitConfigSyntaxError ? err.message : String(err));
				return false;
			}
			const where = display(workspace, file);
			const source = `repository config ${where}`;
			for (const e of entries) {
				if (e.value === undefined || e.value === "") continue;
				const key = entryKey(e);
				const lower = key.toLowerCase();
				if (INCLUDE.test(lower)) {
					const target = expand(e.value, dirname(file), home);
					protect(target, `named by ${key} in ${where}: git reads more config, which can name programs it runs, from this file`, source, false);
					if (chain.includes(target)) continue;
					if (depth + 1 > MAX_INCLUDE_DEPTH) {
						holdWhole(file, `includes nested deeper than ${MAX_INCLUDE_DEPTH}`);
						return false;
					}
					if (!read(target, depth + 1, [...chain, target])) return false;
					continue;
				}
				named(key, e.value, `named by ${key} in ${where}`, source);
				// An alias can hand git config for its run: `alias.x = -c core.hooksPath=h commit`.
				if (e.section === "alias" && !e.value.startsWith("!")) {
					for (const m of e.value.matchAll(/(?:^|\s)-c\s*([^\s=]+)=(\S+)/g)) named(m[1]!, m[2]!, `named by ${m[1]} in ${key} in ${where}`, source);
				}
			}
			return true;
		};
		// The system's and the user's config too: a relative `core.hooksPath` there names a folder in every worktree.
		const files = ["/etc/gitconfig", join(home, ".config/git/config"), join(home, ".gitconfig"), ...configFilesOf(gitDir, seen)];
		for (const file of files) if (!read(file, 0, [file])) break;
	}
	return { rules, seen };
}

const cache = new Map<string, Derivation>();

/** The protected paths the repositories' configs derive, as registry rules; recomputed when any file read changed. */
export function repositoryConfigRules(scope: RepositoryConfigScope): ProtectedPathRule[] {
	const key = `${scope.workspace}\0${scope.home}\0${scope.repositories.join("\0")}`;
	const hit = cache.get(key);
	if (hit && [...hit.seen].every(([file, id]) => identity(file) === id)) return hit.rules;
	const fresh = derive(scope);
	if (cache.size > 64) cache.clear();
	cache.set(key, fresh);
	return fresh.rules;
}
