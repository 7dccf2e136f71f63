/**
 * The label of what a shell command may read (shell-reads.ts): the join of the labels of every
 * file in each scope — secret-pattern files found by a bounded walk, and labels recorded on written
 * content (the store's rows, checked against the file's current hash, and this session's writes) —
 * and, for a git send, of the objects it would send. One labeller serves one call: walks and git
 * reads are cached for that call only, since the command itself may change the tree.
 */
import { createHash } from "node:crypto";
import * as path from "node:path";
import picomatch from "picomatch";
import { readGit } from "../../providers/git-provider.js";
import { readFile, walkFiles } from "../../providers/fs-provider.js";
import { BOTTOM, type Label, join, label } from "./label.js";
import { expandAlias, GIT_COMMANDS } from "./git-alias.js";
import { listRevisionObjects } from "./git-revision-objects.js";
import { revisionReads } from "./git-revision-reads.js";
import { EVERY_REVISION, type ReadScope } from "./shell-reads.js";

export interface ScopeLabelSources {
	/** The workspace's real path; the shell runs there. */
	root: string;
	isSecretFile(rel: string): boolean;
	/** Labels recorded on content in this workspace (by path and hash). */
	recorded(): Promise<readonly { path: string; sha256: string; label: Label }[]>;
	/** Labels this session wrote on paths, whatever their content now. */
	sessionPaths(): ReadonlyMap<string, Label>;
}

export interface ScopeLabel {
	label: Label;
	/** Workspace-relative files in scope that carry a secret label (for matching the output afterwards). */
	secretFiles: string[];
	/**
	 * What the output carries whatever it shows: a git command printing files from a revision prints
	 * them (encoded or not), so its output has their label; `contents` are the secret ones, for the redactor.
	 */
	printed?: { label: Label; contents: { path: string; content: string }[] };
}

/** Most files one walk lists; past it the scope is taken to hold a secret (it could not be seen whole). */
export const SCOPE_WALK_LIMIT = 20_000;
/**
 * Directories the walk does not enter. `.git` holds objects under hashed names (no secret-file
 * name matches there) and git sends are read from the object store instead; `node_modules` is
 * package content from a registry, whose test keys and sample `.env` files are not the user's
 * secrets. Recorded labels are checked by path, so a label written below either still counts.
 */
export const SCOPE_SKIP_DIRS: readonly string[] = [".git", "node_modules"];
const GIT_TIMEOUT_MS = 10_000;
const GIT_MAX_BYTES = 64 * 1024 * 1024;
const HASH_MAX_BYTES = 64 * 1024 * 1024;
/** How many secret files, of what size, are compared with a command's output, and the shortest line that counts. */
const OUTPUT_MATCH_FILES = 64;
const OUTPUT_MATCH_BYTES = 1024 * 1024;
const OUTPUT_MATCH_MIN_LINE = 8;

function sha256(buf: Buffer): string {
	return createHash("sha256").update(buf).digest("hex");
}

/** `rel` is `dir` or below it (`.` holds everything in the workspace; a label kept on an absolute path outside it is not there). */
function under(rel: string, dir: string): boolean {
	return (dir === "." && !rel.startsWith("/")) || rel === dir || rel.startsWith(`${dir}/`);
}

export class ScopeLabeller {
	private walk?: Promise<{ paths: string[]; truncated: boolean }>;
	private readonly rows: Promise<readonly { path: string; sha256: string; label: Label }[]>;
	private readonly hashes = new Map<string, Promise<string | undefined>>();

	constructor(private readonly src: ScopeLabelSources) {
		this.rows = src.recorded();
	}

	/** The join over every scope, with the secret files found in them. */
	async labelOf(scopes: readonly ReadScope[], options: { dotglob?: boolean; globstar?: boolean } = {}): Promise<ScopeLabel> {
		const labels: Label[] = [];
		const secret = new Set<string>();
		const printed: Label[] = [];
		const contents: { path: string; content: string }[] = [];
		for (const scope of scopes) {
			const got = await this.scope(scope, options);
			labels.push(got.label);
			for (const f of got.secretFiles) secret.add(f);
			if (got.printed) {
				printed.push(got.printed.label);
				contents.push(...got.printed.contents);
			}
		}
		const out: ScopeLabel = { label: join(BOTTOM, ...labels), secretFiles: [...secret].sort() };
		return printed.length === 0 ? out : { ...out, printed: { label: join(BOTTOM, ...printed), contents } };
	}

	private async scope(scope: ReadScope, options: { dotglob?: boolean; globstar?: boolean }): Promise<ScopeLabel> {
		switch (scope.kind) {
			case "workspace":
				return this.tree(".", scope.via);
			case "tree": {
				const rel = this.relative(scope.path);
				return rel === undefined ? this.outside(path.resolve(this.src.root, scope.path), scope.via) : this.tree(rel, scope.via);
			}
			case "glob":
				return this.glob(scope.pattern, scope.recursive, options);
			case "git":
				return this.git(scope);
			case "revision":
				return this.revision(scope);
			case "git-alias":
				return this.alias(scope);
		}
	}

	/** Workspace-relative form of a path as the command names it, or undefined when it lies outside. */
	private relative(p: string): string | undefined {
		const abs = path.resolve(this.src.root, p);
		const rel = path.relative(this.src.root, abs);
		if (rel === "") return ".";
		if (rel.startsWith("..") || path.isAbsolute(rel)) return undefined;
		return rel.split(path.sep).join("/");
	}

	private files(): Promise<{ paths: string[]; truncated: boolean }> {
		this.walk ??= walkFiles(this.src.root, { limit: SCOPE_WALK_LIMIT, skipDirs: SCOPE_SKIP_DIRS });
		return this.walk;
	}

	private hash(rel: string): Promise<string | undefined> {
		let h = this.hashes.get(rel);
		if (h === undefined) {
			h = readFile(path.resolve(this.src.root, rel), { maxBytes: HASH_MAX_BYTES }).then(sha256, () => undefined);
			this.hashes.set(rel, h);
		}
		return h;
	}

	/** The label of a set of workspace files: their names, their recorded labels, this session's writes. */
	private async filesLabel(inScope: (rel: string) => boolean, listed: readonly string[]): Promise<ScopeLabel> {
		const labels: Label[] = [];
		const secretFiles: string[] = [];
		for (const rel of listed) {
			if (!this.src.isSecretFile(rel)) continue;
			labels.push(label("secret", "trusted", { kind: "file", ref: rel }));
			secretFiles.push(rel);
		}
		for (const row of await this.rows) {
			if (!inScope(row.path) || (await this.hash(row.path)) !== row.sha256) continue;
			labels.push(row.label);
			if (row.label.sensitivity === "secret") secretFiles.push(row.path);
		}
		for (const [p, l] of this.src.sessionPaths()) {
			if (!inScope(p)) continue;
			labels.push(l);
			if (l.sensitivity === "secret") secretFiles.push(p);
		}
		return { label: join(BOTTOM, ...labels), secretFiles: [...new Set(secretFiles)] };
	}

	/**
	 * Labels recorded on the current content of files a command names: a copy written in an earlier
	 * session keeps the label of what it copied (a named file's own name is labelled by the caller).
	 */
	recordedOn(rels: readonly string[]): Promise<ScopeLabel> {
		const named = new Set(rels);
		return this.filesLabel((rel) => named.has(rel), []);
	}

	private async tree(dir: string, via: string): Promise<ScopeLabel> {
		const walk = await this.files();
		const got = await this.filesLabel((rel) => under(rel, dir), walk.paths.filter((p) => under(p, dir)));
		if (!walk.truncated) return got;
		// More files than one walk lists: what was not seen may hold a secret.
		return { label: join(got.label, label("secret", "trusted", { kind: "file", ref: `${dir} (more than ${SCOPE_WALK_LIMIT} files, not all seen; ${via})` })), secretFiles: got.secretFiles };
	}

	/**
	 * A directory outside the workspace: its secret-pattern files by name (no label is recorded
	 * there). A tree too large to list whole (`/`, a home directory) may hold anything: secret.
	 */
	private async outside(abs: string, via: string): Promise<ScopeLabel> {
		const walk = await walkFiles(abs, { limit: SCOPE_WALK_LIMIT, skipDirs: SCOPE_SKIP_DIRS });
		// A file given as the "tree" lists nothing under it: its own name is what counts.
		const names = walk.paths.length === 0 ? [path.basename(abs)] : walk.paths;
		const labels = names.filter((p) => this.src.isSecretFile(p)).map((p) => label("secret", "trusted", { kind: "file", ref: walk.paths.length === 0 ? abs : path.join(abs, p) }));
		if (walk.truncated) labels.push(label("secret", "trusted", { kind: "file", ref: `${abs} (more than ${SCOPE_WALK_LIMIT} files, not all seen; ${via})` }));
		return { label: join(BOTTOM, ...labels), secretFiles: [] };
	}

	/**
	 * A glob as bash expands it: `*` and `?` do not match a leading dot unless the pattern spells it
	 * (`.*`) or dotglob is on; `**` spans directories only with globstar. For a recursive reader a
	 * matched directory counts with everything below it.
	 */
	private async glob(pattern: string, recursive: boolean, options: { dotglob?: boolean; globstar?: boolean }): Promise<ScopeLabel> {
		const rel = pattern.startsWith("/") ? this.relative(pattern) : pattern.replace(/^(\.\/)+/, "");
		if (rel === undefined || rel.startsWith("../")) return { label: BOTTOM, secretFiles: [] };
		const match = picomatch(rel, { dot: options.dotglob === true, noglobstar: options.globstar !== true, nonegate: true, noextglob: true });
		const walk = await this.files();
		const dirs = new Set<string>();
		for (const p of walk.paths) {
			const parts = p.split("/");
			for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
		}
		const hits = [...walk.paths.filter((p) => match(p)), ...[...dirs].filter((d) => match(d))];
		const inScope = (p: string) => hits.some((h) => (recursive ? under(p, h) : p === h));
		const got = await this.filesLabel(inScope, walk.paths.filter(inScope));
		if (!walk.truncated) return got;
		return { label: join(got.label, label("secret", "trusted", { kind: "file", ref: `${pattern} (workspace larger than ${SCOPE_WALK_LIMIT} files, not all seen)` })), secretFiles: got.secretFiles };
	}

	/** The objects a git send carries, by their paths and content; the working tree too when it may be committed first. */
	private async git(scope: Extract<ReadScope, { kind: "git" }>): Promise<ScopeLabel> {
		const cwdRel = this.relative(scope.cwd ?? ".");
		if (cwdRel === undefined) return { label: label("secret", "trusted", { kind: "file", ref: `${scope.cwd} (a repository outside the workspace; ${scope.via})` }), secretFiles: [] };
		const cwd = path.join(this.src.root, cwdRel);
		const parts: ScopeLabel[] = [];
		if (scope.worktree) parts.push(await this.tree(cwdRel, `${scope.via} after a commit on the same line`));
		const objects = await this.gitObjects(cwd, scope);
		if (objects === undefined) {
			// What would be sent cannot be read: everything the repository's directory holds may be.
			parts.push(await this.tree(cwdRel, `${scope.via}: its objects could not be listed`));
		} else {
			// Paths in the repository are relative to its top, which is the workspace path git reports.
			const top = await readGit(cwd, ["rev-parse", "--show-prefix"], { timeoutMs: GIT_TIMEOUT_MS, maxBytes: 4096 });
			const prefix = top.ok ? top.stdout.toString("utf8").trim() : "";
			const base = prefix === "" ? cwdRel : cwdRel.slice(0, Math.max(0, cwdRel.length - prefix.length)).replace(/\/$/, "") || ".";
			const toWorkspace = (p: string) => (base === "." ? p : `${base}/${p}`);
			parts.push(await this.objectsLabel(objects, toWorkspace, cwd, scope.via));
		}
		return { label: join(BOTTOM, ...parts.map((p) => p.label)), secretFiles: [...new Set(parts.flatMap((p) => p.secretFiles))] };
	}

	/**
	 * The label of git objects by the workspace path each is held at: a secret-pattern name, this
	 * session's label on the path, and a label recorded on that path for the blob's content.
	 */
	private async objectsLabel(objects: readonly { sha: string; path: string }[], toWorkspace: (p: string) => string, cwd: string, via: string, globals: readonly string[] = []): Promise<ScopeLabel & { secretBlobs: { path: string; sha: string }[] }> {
		const labels: Label[] = [];
		const secretFiles: string[] = [];
		const secretBlobs: { path: string; sha: string }[] = [];
		const byPath = new Map<string, { sha256: string; label: Label }[]>();
		for (const row of await this.rows) byPath.set(row.path, [...(byPath.get(row.path) ?? []), row]);
		const session = this.src.sessionPaths();
		for (const o of objects) {
			if (o.path === "") continue;
			const rel = toWorkspace(o.path);
			const parts: Label[] = [];
			if (this.src.isSecretFile(rel) || this.src.isSecretFile(o.path)) {
				parts.push(label("secret", "trusted", { kind: "file", ref: `${rel} (in ${via})` }));
				secretFiles.push(rel);
			}
			const known = session.get(rel);
			if (known !== undefined) parts.push(known);
			const rows = byPath.get(rel);
			if (rows) {
				const blob = await readGit(cwd, [...globals, "cat-file", "blob", o.sha], { timeoutMs: GIT_TIMEOUT_MS, maxBytes: HASH_MAX_BYTES });
				const digest = blob.ok ? sha256(blob.stdout) : undefined;
				for (const row of rows) if (digest === undefined || row.sha256 === digest) parts.push(row.label);
			}
			const l = join(BOTTOM, ...parts);
			labels.push(l);
			if (l.sensitivity === "secret") secretBlobs.push({ path: rel, sha: o.sha });
		}
		return { label: join(BOTTOM, ...labels), secretFiles, secretBlobs };
	}

	/**
	 * What a git command prints from revisions, the index or tracked files, labelled as the files
	 * would be: each blob by its path and content (objectsLabel), tracked working-tree files as
	 * files. What git cannot list (a blob held at no path, objects no ref reaches) is secret; a
	 * revision that does not resolve yet counts as every revision the repository holds, and a
	 * repository git cannot read as the directory's whole tree.
	 */
	private async revision(scope: Extract<ReadScope, { kind: "revision" }>): Promise<ScopeLabel> {
		const cwdRel = this.relative(scope.cwd ?? ".");
		const gitDirRel = scope.gitDir === undefined ? "." : this.relative(path.resolve(this.src.root, cwdRel ?? ".", scope.gitDir));
		if (cwdRel === undefined || gitDirRel === undefined || scope.elsewhere) {
			const l = label("secret", "trusted", { kind: "file", ref: `${scope.gitDir ?? scope.cwd} (a repository outside the workspace; ${scope.via})` });
			return { label: l, secretFiles: [], printed: { label: l, contents: [] } };
		}
		const cwd = path.join(this.src.root, cwdRel);
		const globals = scope.gitDir === undefined ? [] : ["--git-dir", scope.gitDir];
		const parts: ScopeLabel[] = [];
		if (scope.worktree) parts.push(await this.tree(cwdRel, `${scope.via} after a commit on the same line`));
		const listed = await listRevisionObjects(cwd, scope.revision, globals);
		let secretBlobs: { path: string; sha: string }[] = [];
		if (listed === undefined) parts.push(await this.tree(cwdRel, `${scope.via}: not a repository git can read`));
		else {
			const base = path.posix.normalize(path.posix.join(cwdRel, listed.cdup || ".")).replace(/\/$/, "");
			const toWorkspace = (p: string) => (base === "." ? p : `${base}/${p}`);
			const objects = await this.objectsLabel(listed.objects, toWorkspace, cwd, scope.via, globals);
			secretBlobs = objects.secretBlobs;
			parts.push(objects);
			if (listed.worktree.length > 0) {
				const tracked = new Set(listed.worktree.map(toWorkspace));
				parts.push(await this.filesLabel((rel) => tracked.has(rel), [...tracked]));
			}
			for (const why of listed.unlisted) parts.push({ label: label("secret", "trusted", { kind: "file", ref: `${why} (${scope.via})` }), secretFiles: [] });
			// A revision that names nothing yet is made on the same line (a commit, whose working tree is read
			// above, or a new ref such as `git branch x HEAD~3`, which names a commit the repository holds).
			if (listed.unresolved.length > 0) {
				const every = await listRevisionObjects(cwd, EVERY_REVISION, globals);
				if (every === undefined) parts.push(await this.tree(cwdRel, `${scope.via}: ${listed.unresolved.join(", ")} names nothing yet`));
				else {
					const held = await this.objectsLabel(every.objects, toWorkspace, cwd, scope.via, globals);
					secretBlobs.push(...held.secretBlobs);
					parts.push(held);
				}
			}
		}
		const contents: { path: string; content: string }[] = [];
		for (const blob of secretBlobs.slice(0, OUTPUT_MATCH_FILES)) {
			const got = await readGit(cwd, [...globals, "cat-file", "blob", blob.sha], { timeoutMs: GIT_TIMEOUT_MS, maxBytes: OUTPUT_MATCH_BYTES });
			if (got.ok) contents.push({ path: blob.path, content: got.stdout.toString("utf8") });
		}
		const l = join(BOTTOM, ...parts.map((p) => p.label));
		return { label: l, secretFiles: [...new Set(parts.flatMap((p) => p.secretFiles))], printed: { label: l, contents } };
	}

	/**
	 * A sub-command that is an alias in the repository's config reads what its expansion reads; one
	 * that runs a shell, or expands to another alias or to a send, may read the repository's whole
	 * directory. A name that is no alias there runs an external `git-<name>` or fails: as before.
	 */
	private async alias(scope: Extract<ReadScope, { kind: "git-alias" }>): Promise<ScopeLabel> {
		const cwdRel = this.relative(scope.cwd ?? ".");
		if (cwdRel === undefined) return { label: label("secret", "trusted", { kind: "file", ref: `${scope.cwd} (a repository outside the workspace; ${scope.via})` }), secretFiles: [] };
		const globals = scope.gitDir === undefined ? [] : ["--git-dir", scope.gitDir];
		const got = await readGit(path.join(this.src.root, cwdRel), [...globals, "config", "--get", `alias.${scope.sub}`], { timeoutMs: GIT_TIMEOUT_MS, maxBytes: 64 * 1024 });
		if (!got.ok) return { label: BOTTOM, secretFiles: [] };
		const expansion = expandAlias(got.stdout.toString("utf8"));
		const [sub, ...words] = expansion.kind === "git" ? expansion.words : [];
		const via = `${scope.via} (an alias for git ${expansion.kind === "git" ? (sub?.value ?? "") : "through a shell"})`;
		const reads = sub && GIT_COMMANDS.has(sub.value) && !["push", "bundle", "send-email", "request-pull", "grep"].includes(sub.value) ? revisionReads(sub.value, [...words, ...scope.rest]) : { unknown: via };
		if (reads === undefined) return { label: BOTTOM, secretFiles: [] };
		if ("unknown" in reads) return this.tree(cwdRel, via);
		const where = { ...(scope.cwd !== undefined ? { cwd: scope.cwd } : {}), ...(scope.gitDir !== undefined ? { gitDir: scope.gitDir } : {}) };
		return this.revision({ kind: "revision", revision: reads.scope, worktree: scope.worktree, ...where, via });
	}

	/**
	 * The secret files in scope whose content shows in a command's output, with that content: the
	 * output carries their label. A line counts when it is long enough not to appear by chance.
	 */
	async seenIn(output: string, secretFiles: readonly string[]): Promise<{ path: string; content: string }[]> {
		const seen: { path: string; content: string }[] = [];
		for (const rel of secretFiles.slice(0, OUTPUT_MATCH_FILES)) {
			let content: string;
			try {
				content = (await readFile(path.join(this.src.root, rel), { maxBytes: OUTPUT_MATCH_BYTES })).toString("utf8");
			} catch {
				// Gone or too large to compare: the output is judged by detection alone, as before.
				continue;
			}
			const lines = content.split("\n").map((l) => l.trim()).filter((l) => l.length >= OUTPUT_MATCH_MIN_LINE);
			if (lines.some((l) => output.includes(l))) seen.push({ path: rel, content });
		}
		return seen;
	}

	/** `rev-list --objects` of what the send names, minus what the destination is known to have; undefined when git cannot tell. */
	private async gitObjects(cwd: string, scope: Extract<ReadScope, { kind: "git" }>): Promise<{ sha: string; path: string }[] | undefined> {
		const flagRevs = scope.revs.filter((r) => r === "--all" || r === "--tags" || r === "--branches");
		const plain = scope.revs.filter((r) => !r.startsWith("-"));
		const excludeFlags = scope.exclude.filter((r) => /^--remotes=[A-Za-z0-9_.-]+\/\*$/.test(r));
		const excludePlain = scope.exclude.filter((r) => !r.startsWith("-"));
		if (flagRevs.length + plain.length === 0) return [];
		const args = ["rev-list", "--objects", ...flagRevs, ...(excludeFlags.length > 0 ? ["--not", ...excludeFlags, "--not"] : []), "--end-of-options", ...plain, ...excludePlain.map((r) => `^${r}`)];
		const listed = await readGit(cwd, args, { timeoutMs: GIT_TIMEOUT_MS, maxBytes: GIT_MAX_BYTES });
		if (!listed.ok) return undefined;
		const out: { sha: string; path: string }[] = [];
		for (const line of listed.stdout.toString("utf8").split("\n")) {
			const m = /^([0-9a-f]{40,64}) (.+)$/.exec(line);
			if (m) out.push({ sha: m[1]!, path: m[2]! });
		}
		return out;
	}
}
