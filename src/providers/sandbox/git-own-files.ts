/**
 * The protected files git itself makes when a command creates a repository (`git init`,
 * `git clone`), adds a worktree or a submodule — and nothing more. A sandbox lets a command make
 * them, because the everyday workflow needs them, and checks each one after the command ended
 * (protected-sweep.ts): one that matches what git writes stays; anything else is put out of
 * git's reach. Each check is on what the file can make git do, not on who wrote it:
 *
 * - a hook named `*.sample` (git's template copies): git runs a hook only by its exact name
 *   (`pre-commit`), never a `.sample`, so such a file runs nothing whatever it holds;
 * - a config of only the keys `git init`, `git clone`, `git submodule` and `git worktree` write,
 *   plus identity: none of them names a program git runs (core.fsmonitor, core.hooksPath, filters,
 *   aliases, include.path, sshCommand, uploadpack … are all outside the list);
 * - a worktree's pointers that lead back into the workspace, as `git worktree add` writes them;
 * - a `.git` file whose `gitdir:` names a worktree's or a submodule's git dir in the workspace.
 */
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { isInside } from "./protected-layout.js";

/** Config keys that name no program: what git's own commands write into a new repository's config. */
const SAFE_KEYS = new Set([
	"core.repositoryformatversion",
	"core.filemode",
	"core.bare",
	"core.logallrefupdates",
	"core.ignorecase",
	"core.precomposeunicode",
	"core.symlinks",
	"core.worktree",
	"extensions.objectformat",
	"init.defaultbranch",
	"user.name",
	"user.email",
]);
/** Keys allowed under a named subsection: `[remote "origin"] url = …`. */
const SAFE_SUBSECTION_KEYS: Record<string, ReadonlySet<string>> = {
	remote: new Set(["url", "fetch"]),
	branch: new Set(["remote", "merge"]),
	submodule: new Set(["url", "active"]),
};

const SECTION = /^\[([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\]$/;
const ENTRY = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/;

interface ConfigReading {
	/** Why the config is not one git's own commands write; undefined when it is. */
	unsafe: string | undefined;
	/** The config with only its safe entries (each under its section line), or undefined when a line could not be read. */
	safe: string | undefined;
}

function readGitConfig(text: string): ConfigReading {
	let section: string | undefined;
	let subsection: string | undefined;
	let header: string | undefined;
	let unsafe: string | undefined;
	const kept: string[] = [];
	for (const raw of text.split("\n")) {
		const line = raw.trim();
		if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
		// A continued value can hide the next line's key from a line-by-line reading: refused, nothing kept.
		if (line.endsWith("\\")) return { unsafe: "a config value continued over lines", safe: undefined };
		const head = SECTION.exec(line);
		if (head) {
			section = head[1]!.toLowerCase();
			subsection = head[2];
			header = line;
			continue;
		}
		const entry = ENTRY.exec(line);
		if (!entry || section === undefined) return { unsafe: `a config line git's own commands do not write: ${JSON.stringify(line.slice(0, 80))}`, safe: undefined };
		const key = entry[1]!.toLowerCase();
		const allowed = subsection === undefined ? SAFE_KEYS.has(`${section}.${key}`) : (SAFE_SUBSECTION_KEYS[section]?.has(key) ?? false);
		if (!allowed) {
			unsafe ??= `config key ${section}${subsection === undefined ? "" : `.${subsection}`}.${key}`;
			continue;
		}
		if (header !== undefined) kept.push(header);
		header = undefined;
		kept.push(`\t${line}`);
	}
	return { unsafe, safe: kept.length === 0 ? "" : `${kept.join("\n")}\n` };
}

/** Why a config is not one git's own commands write, or undefined when it is. Anything unparsed is refused. */
export const unsafeGitConfig = (text: string): string | undefined => readGitConfig(text).unsafe;

/**
 * What of a refused config may stay: its safe entries only, so that a new repository keeps the
 * settings `git init` gave it when a command added one that names a program. Undefined when a
 * line could not be read (then nothing is kept).
 */
export const safePartOfGitConfig = (text: string): string | undefined => readGitConfig(text).safe;

/** Whether `rel` is a git dir's config (a repository's, or a submodule's under `.git/modules/`). */
export function isGitDirConfig(rel: string): boolean {
	const parts = rel.split("/");
	const at = parts.lastIndexOf(".git");
	return at >= 0 && parts[parts.length - 1] === "config" && (at === parts.length - 2 || parts[at + 1] === "modules");
}

/** A regular file's text; nothing for anything else (a FIFO a command left would block the read forever). */
export function readRegular(path: string): string | undefined {
	try {
		return lstatSync(path).isFile() ? readFileSync(path, "utf8") : undefined;
	} catch {
		return undefined;
	}
}

function realInside(path: string, workspace: string): string | undefined {
	try {
		const real = realpathSync(path);
		return isInside(real, workspace) ? real : undefined;
	} catch {
		return undefined;
	}
}

/** The path a `.git` file points at, when it is a `gitdir:` line to a worktree's or submodule's git dir inside the workspace. */
function pointerTarget(abs: string, workspace: string): string | undefined {
	const m = /^gitdir: (.+)\n?$/.exec(readRegular(abs) ?? "");
	if (!m) return undefined;
	const named = m[1]!;
	const target = realInside(isAbsolute(named) ? named : resolve(dirname(abs), named), workspace);
	if (target === undefined) return undefined;
	const parts = target.slice(workspace.length).split(sep);
	const at = parts.lastIndexOf(".git");
	return at >= 0 && (parts[at + 1] === "worktrees" || parts[at + 1] === "modules") ? target : undefined;
}

/**
 * Why a protected path a command just created is not one of git's own, or undefined when it is.
 * `rel` is workspace-relative; `kind` what the command left there.
 */
export function notGitsOwn(workspace: string, rel: string, kind: "dir" | "file" | "link"): string | undefined {
	const parts = rel.split("/");
	const at = parts.lastIndexOf(".git");
	if (at < 0) return "not a file of git's";
	if (kind === "link") return "a link where git keeps a control file";
	const inner = parts.slice(at + 1);
	const abs = join(workspace, ...parts);
	const name = inner[inner.length - 1];
	// A new repository's git dir, or a hooks dir: containers whose files are each checked on their own.
	if (kind === "dir") return inner.length === 0 || name === "hooks" ? undefined : "a directory where git keeps a control file";
	if (inner.length === 0) return pointerTarget(abs, workspace) === undefined ? "a .git file that points outside the workspace's worktrees and submodules" : undefined;
	const hooksAt = inner.lastIndexOf("hooks");
	if (hooksAt >= 0 && hooksAt === inner.length - 2) {
		return name!.endsWith(".sample") ? undefined : `a git hook (${name}) git would run`;
	}
	if (isGitDirConfig(rel)) {
		const text = readRegular(abs);
		return text === undefined ? "an unreadable git config" : unsafeGitConfig(text);
	}
	if (inner[0] === "worktrees" && inner.length === 3) {
		const text = (readRegular(abs) ?? "").trim();
		if (name === "commondir") return text === "../.." ? undefined : "a worktree's commondir that leads elsewhere than its repository";
		if (name === "gitdir") {
			const target = isAbsolute(text) && text.endsWith(`${sep}.git`) ? realInside(text, workspace) : undefined;
			return target === undefined ? "a worktree's gitdir that leads outside the workspace" : undefined;
		}
	}
	return "a git control file git's own commands do not make";
}
