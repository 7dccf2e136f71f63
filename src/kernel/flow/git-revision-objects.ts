/**
 * The files a revision read prints, as git lists them: for each read of git-revision-reads.ts, the
 * blobs (with the path the revision holds them at, relative to the repository's top), the tracked
 * files whose working-tree content a diff compares, and what could not be listed. Read-only
 * plumbing through providers/git-provider.ts; the caller labels what is listed.
 */
import * as path from "node:path";
import { lstatIfExists } from "../../providers/fs-provider.js";
import { readGit } from "../../providers/git-provider.js";
import type { RevisionRead, RevisionScope } from "./git-revision-reads.js";

export interface RevisionObjects {
	/** The repository's top, relative to where git ran (`""` there, `"../"` one level up). */
	cdup: string;
	/** Objects with the top-relative path they are held at; the empty path for a commit or a root tree. */
	objects: { sha: string; path: string }[];
	/** Top-relative tracked files whose working-tree content is read. */
	worktree: string[];
	/** Parts that could not be listed, and why: each counts as secret. */
	unlisted: string[];
	/** Revisions that name nothing yet (the same command line may make them): the caller reads the working tree instead. */
	unresolved: string[];
}

const GIT_TIMEOUT_MS = 10_000;
const GIT_MAX_BYTES = 64 * 1024 * 1024;
/** Flags rev-list takes in place of revisions. */
const REF_SETS = new Set(["--all", "--branches", "--tags", "--remotes", "--reflog"]);
const GLOB = /[*?[]/;

type Git = (args: readonly string[]) => Promise<{ ok: boolean; text: string }>;

function objectLines(text: string): { sha: string; path: string }[] {
	const out: { sha: string; path: string }[] = [];
	for (const line of text.split("\n")) {
		const m = /^([0-9a-f]{40,64})(?: (.*))?$/.exec(line);
		if (m) out.push({ sha: m[1]!, path: m[2] ?? "" });
	}
	return out;
}

/** `ls-files -s` lines: `<mode> <sha> <stage>\t<path>`. */
function indexLines(text: string): { sha: string; path: string }[] {
	const out: { sha: string; path: string }[] = [];
	for (const line of text.split("\n")) {
		const m = /^\d+ ([0-9a-f]{40,64}) \d\t(.+)$/.exec(line);
		if (m) out.push({ sha: m[1]!, path: m[2]! });
	}
	return out;
}

/** `rel` is `limit` or below it. */
function under(rel: string, limit: string): boolean {
	return limit === "" || rel === limit || rel.startsWith(`${limit}/`);
}

/** A path as written where git runs, made relative to the repository's top; undefined when it leaves it. */
function fromTop(prefix: string, p: string): string | undefined {
	const joined = path.posix.normalize(path.posix.join(prefix, p)).replace(/\/+$/, "");
	if (joined === ".") return "";
	return joined.startsWith("../") || joined === ".." ? undefined : joined;
}

/** Lists what a revision scope prints; undefined when `cwd` is no repository git can read. */
export async function listRevisionObjects(cwd: string, scope: RevisionScope, globals: readonly string[] = []): Promise<RevisionObjects | undefined> {
	const git: Git = async (args) => {
		const r = await readGit(cwd, [...globals, ...args], { timeoutMs: GIT_TIMEOUT_MS, maxBytes: GIT_MAX_BYTES });
		return { ok: r.ok, text: r.ok ? r.stdout.toString("utf8") : (r.error ?? "") };
	};
	const top = await git(["rev-parse", "--show-prefix", "--show-cdup"]);
	if (!top.ok) return undefined;
	const [prefix = "", cdup = ""] = top.text.split("\n");
	const out: RevisionObjects = { cdup: cdup.trim(), objects: [], worktree: [], unlisted: [], unresolved: [] };
	const limits: string[] = [];
	for (const p of scope.paths) {
		const rel = fromTop(prefix.trim(), p);
		if (rel !== undefined && !GLOB.test(p) && !p.startsWith(":")) limits.push(rel);
		else limits.push("");
	}
	const noWalk: string[] = [];
	const walk: string[] = [];
	const idByBlob: string[] = [];
	let index = false;
	let worktree = false;
	let all = false;
	let named = 0;
	let paths = 0;
	let first: Extract<RevisionRead, { rev: string }> | undefined;
	for (const read of scope.reads) {
		if (!("rev" in read)) {
			if (read.kind === "index") index = true;
			else if (read.kind === "worktree") worktree = true;
			else all = true;
		} else {
			first ??= read;
			named++;
			if (await place(read, noWalk, walk, idByBlob, limits, out, git, prefix.trim(), cwd)) paths++;
		}
	}
	// Every word it was given was a path (`git log -p .env`): it reads its default revision, HEAD.
	if (first !== undefined && named === paths) await place({ kind: first.kind, rev: "HEAD" }, noWalk, walk, idByBlob, limits, out, git, prefix.trim(), cwd);
	const listed: { sha: string; path: string }[] = [];
	for (const [revs, extra] of [
		[noWalk, ["--no-walk"]],
		[walk, []],
	] as const) {
		if (revs.length === 0) continue;
		const flags = revs.filter((r) => REF_SETS.has(r));
		const named = revs.filter((r) => !REF_SETS.has(r));
		const got = await git(["rev-list", "--objects", ...extra, ...flags, "--end-of-options", ...named]);
		if (got.ok) listed.push(...objectLines(got.text));
		else out.unlisted.push(`rev-list of ${revs.join(" ")}: ${got.text}`);
	}
	if (index || worktree || idByBlob.length > 0 || all) {
		const staged = await git(["ls-files", "-s", "--full-name"]);
		if (!staged.ok) out.unlisted.push(`the index: ${staged.text}`);
		const entries = staged.ok ? indexLines(staged.text) : [];
		if (index || all) listed.push(...entries);
		if (worktree) out.worktree.push(...entries.map((e) => e.path));
		if (idByBlob.length > 0 || all) {
			const everything = await git(["rev-list", "--objects", "--all", "--reflog"]);
			const known = everything.ok ? objectLines(everything.text) : [];
			if (all) listed.push(...known);
			for (const sha of idByBlob) {
				const held = [...known, ...entries].filter((o) => o.sha === sha && o.path !== "");
				// A blob no ref, reflog or index entry holds has no path to judge it by.
				if (held.length === 0) out.unlisted.push(`blob ${sha.slice(0, 12)}, held at no path`);
				listed.push(...held);
			}
		}
		// Objects no ref reaches (`--batch-all-objects`) have no path either.
		if (all) out.unlisted.push("every object the repository holds, reachable or not");
	}
	const inLimits = (p: string) => limits.length === 0 || limits.some((l) => under(p, l));
	out.objects = listed.filter((o) => o.path === "" || inLimits(o.path));
	out.worktree = out.worktree.filter(inLimits);
	return out;
}

/**
 * Sorts one read by how it is listed: a named object (and a patch's parents) without a walk, a
 * history with one, a blob named by id by where it is held. True when git takes the word as a path.
 */
async function place(read: Extract<RevisionRead, { rev: string }>, noWalk: string[], walk: string[], idByBlob: string[], limits: string[], out: RevisionObjects, git: Git, prefix: string, cwd: string): Promise<boolean> {
	if (REF_SETS.has(read.rev)) {
		walk.push(read.rev);
		return false;
	}
	// A word git would take for an option (`a..--textconv` splits to one) names no revision: secret.
	if (read.rev.startsWith("-")) {
		out.unlisted.push(`${read.rev}: not a revision`);
		return false;
	}
	const type = await git(["cat-file", "-t", "--end-of-options", read.rev]);
	if (!type.ok) {
		// git takes a word that names no revision as a path when that file exists (else it fails on it);
		// a path outside the repository limits nothing.
		if (read.orPath && (await lstatIfExists(path.resolve(cwd, read.rev)).catch(() => null)) !== null) {
			limits.push(fromTop(prefix, read.rev) ?? "");
			return true;
		}
		out.unresolved.push(read.rev);
		return false;
	}
	const kind = type.text.trim();
	if (read.kind === "history" && (kind === "commit" || kind === "tag")) {
		walk.push(read.rev);
		return false;
	}
	if (kind === "blob" && !read.rev.includes(":")) {
		const sha = await git(["rev-parse", "--verify", "--end-of-options", read.rev]);
		if (sha.ok) idByBlob.push(sha.text.trim());
		else out.unlisted.push(`${read.rev}: ${sha.text}`);
		return false;
	}
	const peeled = kind === "tag" ? `${read.rev}^{}` : read.rev;
	noWalk.push(peeled);
	if (read.kind === "patch" && (kind === "commit" || kind === "tag")) {
		const parents = await git(["rev-parse", "--end-of-options", `${peeled}^@`]);
		if (parents.ok) noWalk.push(...parents.text.split("\n").filter((l) => /^[0-9a-f]{40,64}$/.test(l.trim())).map((l) => l.trim()));
	}
	return false;
}
