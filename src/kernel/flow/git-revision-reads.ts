/**
 * What a git sub-command prints from the repository rather than the working tree: `git show
 * HEAD:.env`, `git cat-file -p <rev>:<path>`, `git log -p`, `git diff <rev>`, `git archive`,
 * `git grep <pattern> <rev>`, `git stash show -p`. Each names revisions (or the index) whose files
 * it prints, so the read carries the label of those files, exactly as reading them from the working
 * tree would (shell-scope-label.ts lists the objects with git and labels each by its path and
 * content). Which sub-command reads what is data, one row per sub-command.
 */
import type { ShellWord } from "../admission/shell/shell-types.js";
import { scanArgs } from "./shell-egress-args.js";

/**
 * One source of printed content. `object`: the object a revision names (a blob, a tree with all
 * below it, a commit's tree); `patch`: a commit shown as a patch (its tree and its parents' trees);
 * `history`: every object reachable from the revision (a flag such as `--all` stands for its refs);
 * `index`: the staged files; `worktree`: the tracked files as they are in the working tree; `all`:
 * every object the repository holds. `orPath`: git takes the word as a path when it names no revision.
 */
export type RevisionRead =
	| { kind: "object" | "patch" | "history"; rev: string; orPath?: boolean }
	| { kind: "index" | "worktree" | "all" };

export interface RevisionScope {
	reads: RevisionRead[];
	/** Path limits as written after `--` (relative to where git runs); none: the whole revision. */
	paths: string[];
}

type EachKind = "object" | "patch" | "history";

interface RevisionReader {
	/** Options whose value is the next word (so the value is not taken for a revision). */
	values: readonly string[];
	/** What each named revision is read as. */
	each: EachKind;
	/** Read when no revision is named. */
	none: readonly RevisionRead[];
	/** It prints file content only with one of these (`log -p`); absent: always. */
	contentOptions?: readonly string[];
	/** Options with which it prints no file content (`cat-file -t`). */
	noContentOptions?: readonly string[];
	/** Leading operands that are not revisions: grep's pattern (unless `-e`/`-f` gives it), cat-file's type. */
	skip?: (operands: readonly string[], options: ReadonlySet<string>) => number;
	/** Operands after the first revision are paths (`git archive HEAD src`). */
	oneRevision?: boolean;
	/** Options that make it read every object, or all refs' history. */
	allOptions?: readonly string[];
	/** Options that make it read the index instead of a revision. */
	indexOptions?: readonly string[];
	/** Options under which it reads no local revision (`archive --remote`, `grep --no-index`). */
	elsewhereOptions?: readonly string[];
}

const PATCH_OPTIONS = ["-p", "-u", "--patch", "--patch-with-stat", "--patch-with-raw", "--cc", "-c", "--word-diff", "--color-words", "-L", "--full-diff", "--binary", "--ext-diff", "--textconv"];
const LOG_VALUES = ["-n", "--max-count", "--skip", "--since", "--after", "--until", "--before", "--author", "--committer", "--grep", "--format", "--pretty", "-L", "--output", "--encoding", "-S", "-G", "--date", "--decorate-refs", "--decorate-refs-exclude", "--min-parents", "--max-parents", "--diff-filter", "-O", "--relative", "--src-prefix", "--dst-prefix", "--line-prefix", "--word-diff-regex", "--find-object", "-I", "--ignore-matching-lines"];
const DIFF_VALUES = ["--output", "-O", "--word-diff-regex", "-S", "-G", "--diff-filter", "--relative", "--src-prefix", "--dst-prefix", "--line-prefix", "--find-object", "-I", "--ignore-matching-lines", "--anchored"];
/** Flags that stand for a set of refs: the history of each. */
const REF_SET_OPTIONS = ["--all", "--branches", "--tags", "--remotes", "--reflog", "--glob", "--walk-reflogs", "-g", "--stdin"];
const GREP_VALUES = ["-e", "-f", "-A", "-B", "-C", "--context", "--after-context", "--before-context", "-m", "--max-count", "--max-depth", "--threads", "-O", "--open-files-in-pager", "--color"];
const OBJECT_TYPES = new Set(["blob", "tree", "commit", "tag"]);

/** Sub-commands that print content from revisions, and how each reads its operands. */
export const REVISION_READERS: Readonly<Record<string, RevisionReader>> = {
	show: { values: [...LOG_VALUES], each: "patch", none: [{ kind: "patch", rev: "HEAD" }] },
	"cat-file": {
		values: ["--path", "--filters"],
		each: "object",
		none: [],
		noContentOptions: ["-t", "-s", "-e", "--batch-check"],
		allOptions: ["--batch", "--batch-all-objects", "--batch-command"],
		skip: (ops) => (ops.length > 1 && OBJECT_TYPES.has(ops[0]!) ? 1 : 0),
	},
	log: { values: LOG_VALUES, each: "history", none: [{ kind: "history", rev: "HEAD" }], contentOptions: PATCH_OPTIONS },
	whatchanged: { values: LOG_VALUES, each: "history", none: [{ kind: "history", rev: "HEAD" }], contentOptions: PATCH_OPTIONS },
	reflog: { values: LOG_VALUES, each: "history", none: [{ kind: "history", rev: "--reflog" }], contentOptions: PATCH_OPTIONS },
	"format-patch": { values: ["-o", "--output-directory", "--subject-prefix", "--to", "--cc", "--from", "--in-reply-to", "--suffix", "-v", "--reroll-count", "--base", "--signature", "--signature-file", "--start-number"], each: "history", none: [{ kind: "history", rev: "HEAD" }] },
	"range-diff": { values: LOG_VALUES, each: "history", none: [] },
	"fast-export": { values: ["--signed-tags", "--tag-of-filtered-object", "--export-marks", "--import-marks", "--refspec"], each: "history", none: [] },
	"diff-tree": { values: DIFF_VALUES, each: "patch", none: [], contentOptions: PATCH_OPTIONS, allOptions: ["--stdin"] },
	archive: {
		values: ["--format", "-o", "--output", "--prefix", "--remote", "--exec", "--add-file", "--add-virtual-file"],
		each: "object",
		none: [],
		oneRevision: true,
		elsewhereOptions: ["--remote"],
	},
	blame: { values: ["-L", "-S", "--contents", "--ignore-rev", "--ignore-revs-file", "-C", "-M", "--date"], each: "history", none: [{ kind: "history", rev: "HEAD" }] },
	annotate: { values: ["-L", "-S", "--contents", "--date"], each: "history", none: [{ kind: "history", rev: "HEAD" }] },
	grep: {
		values: GREP_VALUES,
		each: "object",
		none: [],
		skip: (_ops, options) => (options.has("-e") || options.has("-f") ? 0 : 1),
		indexOptions: ["--cached"],
		elsewhereOptions: ["--no-index", "--untracked"],
	},
};

/** `a..b`, `a...b` read both sides (the range's base only narrows); `^a` only excludes. */
function revisionWords(word: string): string[] {
	if (word.startsWith("^")) return [];
	// `rev:path` names one object; `..` inside its path is no range.
	if (word.includes(":")) return [word];
	const dots = /^(.*?)\.\.\.?(.*)$/.exec(word);
	if (!dots) return [word];
	return [dots[1] || "HEAD", dots[2] || "HEAD"];
}

/** Splits at the first `--`: what comes after is paths. */
function splitPaths(args: readonly ShellWord[]): { before: ShellWord[]; paths: ShellWord[] } {
	const at = args.findIndex((w) => w.static && w.value === "--");
	return at === -1 ? { before: [...args], paths: [] } : { before: args.slice(0, at), paths: args.slice(at + 1) };
}

/** Why a read cannot be known before it runs, or its scope. */
export type RevisionParse = { scope: RevisionScope } | { unknown: string } | undefined;

/** `git diff`: what it compares depends on `--cached` and how many revisions it names. */
function diffReads(rest: readonly ShellWord[]): RevisionParse {
	const { before, paths } = splitPaths(rest);
	const scanned = scanArgs(before, new Set(DIFF_VALUES));
	const flags = new Set(scanned.options.map((o) => o.name));
	if (flags.has("--no-index")) return undefined;
	const operands = scanned.operands.filter((w) => !(w.static && w.value.startsWith("-")));
	if (operands.some((w) => !w.static) || paths.some((w) => !w.static)) return { unknown: "git diff with a revision only known at run time" };
	const words = operands.map((w) => w.value);
	const revs = words.flatMap(revisionWords);
	const cached = flags.has("--cached") || flags.has("--staged");
	const reads: RevisionRead[] = revs.map((rev) => ({ kind: words.some((w) => w.includes("...")) ? "history" : "object", rev, orPath: true }));
	if (cached) reads.push({ kind: "index" }, ...(revs.length === 0 ? [{ kind: "object" as const, rev: "HEAD" }] : []));
	else if (words.length <= 1 && !words.some((w) => w.includes(".."))) reads.push({ kind: "index" }, { kind: "worktree" });
	return { scope: { reads, paths: paths.map((w) => w.value) } };
}

/** `git stash show [-p] [<stash>]` and `git stash list -p`: the stash's commits as patches. */
function stashReads(rest: readonly ShellWord[]): RevisionParse {
	const [action, ...args] = rest;
	if (!action?.static) return action === undefined ? undefined : { unknown: "git stash with a sub-command only known at run time" };
	if (action.value === "list") {
		const scanned = scanArgs(args, new Set(LOG_VALUES));
		return scanned.options.some((o) => PATCH_OPTIONS.includes(o.name)) ? { scope: { reads: [{ kind: "history", rev: "--reflog" }], paths: [] } } : undefined;
	}
	if (action.value !== "show") return undefined;
	// `stash.showPatch` in the repository's config makes a plain `stash show` print the patch too.
	const scanned = scanArgs(args, new Set(DIFF_VALUES));
	const operands = scanned.operands.filter((w) => !(w.static && w.value.startsWith("-")));
	if (operands.some((w) => !w.static)) return { unknown: "git stash show of a stash only known at run time" };
	const revs = operands.map((w) => (/^\d+$/.test(w.value) ? `stash@{${w.value}}` : w.value));
	return { scope: { reads: (revs.length > 0 ? revs : ["stash@{0}"]).map((rev) => ({ kind: "patch", rev })), paths: [] } };
}

/** The revisions one git sub-command prints content from; undefined when it prints none. */
export function revisionReads(sub: string, rest: readonly ShellWord[]): RevisionParse {
	if (sub === "diff" || sub === "diff-index" || sub === "diff-files") {
		if (sub !== "diff" && !rest.some((w) => w.static && PATCH_OPTIONS.includes(w.value))) return undefined;
		return diffReads(rest);
	}
	if (sub === "stash") return stashReads(rest);
	if (!Object.hasOwn(REVISION_READERS, sub)) return undefined;
	const reader = REVISION_READERS[sub]!;
	const { before, paths } = splitPaths(rest);
	const scanned = scanArgs(before, new Set(reader.values));
	const flags = new Set(scanned.options.map((o) => o.name));
	const has = (names: readonly string[] | undefined) => names?.some((n) => flags.has(n)) === true;
	if (reader.contentOptions && !has(reader.contentOptions)) return undefined;
	if (has(reader.noContentOptions) || has(reader.elsewhereOptions)) return undefined;
	if (has(reader.allOptions)) return { scope: { reads: [{ kind: "all" }], paths: [] } };
	const operands = scanned.operands.filter((w) => !(w.static && /^-/.test(w.value)));
	if (operands.some((w) => !w.static) || paths.some((w) => !w.static)) return { unknown: `git ${sub} with a revision only known at run time` };
	const words = operands.map((w) => w.value);
	const skipped = reader.skip?.(words, flags) ?? 0;
	let revs = words.slice(skipped);
	let limits = paths.map((w) => w.value);
	if (reader.oneRevision) {
		limits = [...revs.slice(1), ...limits];
		revs = revs.slice(0, 1);
	}
	const reads: RevisionRead[] = revs.flatMap(revisionWords).map((rev) => ({ kind: reader.each, rev, orPath: !reader.oneRevision }));
	for (const o of scanned.options) {
		if (REF_SET_OPTIONS.includes(o.name)) reads.push({ kind: "history", rev: o.name === "-g" || o.name === "--walk-reflogs" ? "--reflog" : o.name === "--stdin" ? "--all" : o.name === "--glob" ? "--all" : o.name });
	}
	if (has(reader.indexOptions)) reads.push({ kind: "index" });
	if (reads.length === 0 && sub === "grep") return undefined;
	return { scope: { reads: reads.length > 0 ? reads : [...reader.none], paths: limits } };
}
