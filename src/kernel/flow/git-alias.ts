/**
 * A git sub-command that is no command of git's own may be an alias the repository's config defines
 * (`[alias] lg = log -p`), which runs another sub-command with more words, or a shell (`!sh …`).
 * Git never lets an alias shadow one of its own commands, so only other names are looked up.
 */
import type { ShellWord } from "../admission/shell/shell-types.js";

/** git's own commands (`git --list-cmds=builtins`, and the scripts it ships): never an alias. */
export const GIT_COMMANDS: ReadonlySet<string> = new Set([
	...["add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bugreport", "bundle", "cat-file", "check-attr", "check-ignore", "check-mailmap", "check-ref-format"],
	...["checkout", "checkout-index", "cherry", "cherry-pick", "clean", "clone", "column", "commit", "commit-graph", "commit-tree", "config", "count-objects", "credential", "describe", "diagnose"],
	...["diff", "diff-files", "diff-index", "diff-tree", "difftool", "fast-export", "fast-import", "fetch", "fetch-pack", "fmt-merge-msg", "for-each-ref", "for-each-repo", "format-patch", "fsck", "gc"],
	...["get-tar-commit-id", "grep", "hash-object", "help", "hook", "index-pack", "init", "interpret-trailers", "log", "ls-files", "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance"],
	...["merge", "merge-base", "merge-file", "merge-index", "merge-tree", "mergetool", "mktag", "mktree", "multi-pack-index", "mv", "name-rev", "notes", "pack-objects", "pack-refs", "patch-id", "prune"],
	...["pull", "push", "range-diff", "read-tree", "rebase", "receive-pack", "reflog", "remote", "repack", "replace", "request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm"],
	...["send-email", "send-pack", "shortlog", "show", "show-branch", "show-index", "show-ref", "sparse-checkout", "stage", "stash", "status", "stripspace", "submodule", "switch", "symbolic-ref", "tag"],
	...["unpack-file", "unpack-objects", "update-index", "update-ref", "update-server-info", "upload-archive", "upload-pack", "var", "verify-commit", "verify-pack", "verify-tag", "version", "whatchanged", "worktree", "write-tree"],
]);

/** What an alias's value runs: git with these words (its sub-command first), or a shell. */
export type AliasExpansion = { kind: "git"; words: ShellWord[] } | { kind: "shell" };

/** Reads an alias's value as git does (split_cmdline): `!` runs a shell; otherwise words split on blanks outside quotes, quotes removed. */
export function expandAlias(value: string): AliasExpansion {
	const text = value.trim();
	if (text.startsWith("!")) return { kind: "shell" };
	const words: ShellWord[] = [];
	let word: string | undefined;
	let quote: string | undefined;
	for (let i = 0; i < text.length; i++) {
		const ch = text[i]!;
		if (quote === undefined && /\s/.test(ch)) {
			if (word !== undefined) words.push({ value: word, static: true });
			word = undefined;
			continue;
		}
		word ??= "";
		if (ch === "\\" && quote !== "'" && i + 1 < text.length) word += text[++i];
		else if (quote === undefined && (ch === "'" || ch === '"')) quote = ch;
		else if (ch === quote) quote = undefined;
		else word += ch;
	}
	if (word !== undefined) words.push({ value: word, static: true });
	return { kind: "git", words };
}
