/**
 * Which shell sub-commands are known to only read, and which are destructive. Both lists are
 * deliberately short: anything not on them is an ordinary command that a mode may ask about.
 */
import type { SimpleCommand } from "./shell/shell-types.js";

/** Programs that only read or print, whatever their arguments (output redirection aside). */
const READERS = new Set([
	"ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "pwd", "echo", "printf", "true", "false", "which",
	"whoami", "id", "uname", "file", "stat", "du", "df", "cut", "tr", "diff", "cmp", "comm", "basename", "dirname",
	"realpath", "readlink", "test", "[", "seq", "nl", "od", "hexdump", "md5sum", "sha1sum", "sha256sum", "sha512sum",
	"cksum", "type", "column", "rev", "tac", "jq", "printenv", "env", "uptime", "nproc", "locale", "tty", "groups", "ps",
	"free", ":",
]);

/** `program → predicate` for programs that read unless given particular options or operands. */
const CONDITIONAL_READERS: Record<string, (c: SimpleCommand) => boolean> = {
	find: (c) => !c.argv.some((a) => /^-(?:delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/.test(a)),
	rg: (c) => !c.normalized.flags.some((f) => f.startsWith("--pre")),
	sort: (c) => !c.normalized.flags.some((f) => /^(?:-o|--output)(?:[ =]|$)/.test(f)),
	tree: (c) => !c.normalized.flags.some((f) => /^-o(?: |$)/.test(f)),
	uniq: (c) => c.normalized.operands.length <= 1,
	date: (c) => !c.normalized.flags.some((f) => /^(?:-s|--set)(?:[ =]|$)/.test(f)),
	hostname: (c) => c.normalized.operands.length === 0 && c.normalized.flags.every((f) => !/^(?:-F|--file)/.test(f)),
	git: isReadOnlyGit,
	command: (c) => c.normalized.flags.some((f) => f === "-v" || f === "-V"),
};

const GIT_READERS = new Set([
	"status", "diff", "log", "show", "rev-parse", "ls-files", "ls-tree", "blame", "describe", "shortlog", "cat-file",
	"grep", "rev-list", "whatchanged", "show-ref", "for-each-ref", "merge-base", "name-rev", "count-objects",
]);
/** Global git options that can make git run arbitrary programs (pager, fsmonitor, hooks …). */
const GIT_UNSAFE_GLOBAL = /^(?:-c|--config-env|--exec-path)(?:[ =]|$)/;
const GIT_LISTING_FLAGS = new Set(["-a", "-r", "-v", "-l", "--list", "--show-current", "--remotes", "--verbose", "--no-color", "--color"]);

function isReadOnlyGit(c: SimpleCommand): boolean {
	const flags = c.normalized.flags;
	if (flags.some((f) => GIT_UNSAFE_GLOBAL.test(f) || f.startsWith("--output") || f === "--ext-diff")) return false;
	const [sub, ...rest] = c.normalized.operands;
	if (!sub?.static) return false;
	if (GIT_READERS.has(sub.value)) return true;
	const listingOnly = flags.every((f) => GIT_LISTING_FLAGS.has(f) || /^-C /.test(f));
	switch (sub.value) {
		case "branch":
		case "tag":
			return listingOnly && rest.length === 0;
		case "remote":
			return listingOnly && (rest.length === 0 || (rest.length === 1 && rest[0]!.value === "show"));
		case "stash":
		case "worktree":
			return rest.length === 1 && rest[0]!.value === "list";
		case "config":
			return flags.some((f) => /^(?:-l|--list|--get|--get-all|--get-regexp)(?:[ =]|$)/.test(f));
		default:
			return false;
	}
}

const HARMLESS_SINKS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"]);

/** A redirect that writes a file (not a descriptor duplication or /dev/null). */
export function writesFiles(c: SimpleCommand): boolean {
	return c.redirects.some((r) => r.kind === "write" && !HARMLESS_SINKS.has(r.target.value));
}

/** Known to only read: a listed program, known at parse time, not privileged, writing no file. */
export function isReadOnlyCommand(c: SimpleCommand): boolean {
	if (c.opaque || !c.programKnown || c.privileged || writesFiles(c)) return false;
	if (c.program === "") return true;
	if (READERS.has(c.program)) return true;
	// Own keys only: a program named `constructor` or `__proto__` must not reach Object.prototype.
	return Object.hasOwn(CONDITIONAL_READERS, c.program) ? CONDITIONAL_READERS[c.program]!(c) : false;
}

const ALWAYS_DESTRUCTIVE = new Set([
	"dd", "truncate", "shred", "wipefs", "blkdiscard", "mkswap", "mke2fs", "fdisk", "sfdisk", "parted", "sgdisk",
	"shutdown", "reboot", "halt", "poweroff",
]);

function isDestructiveGit(c: SimpleCommand): boolean {
	const flags = c.normalized.flags;
	const [sub, ...rest] = c.normalized.operands.map((o) => o.value);
	switch (sub) {
		case "push":
			return (
				flags.some((f) => f === "-f" || f.startsWith("--force-with-lease") || f === "--mirror" || f === "-d" || f === "--prune") ||
				rest.some((r) => r.startsWith("+") || r.startsWith(":"))
			);
		case "reset":
			return flags.includes("--hard");
		case "clean":
			return flags.includes("-f");
		case "checkout":
			return flags.includes("-f");
		case "branch":
			return flags.includes("-D") || (flags.includes("-d") && flags.includes("-f"));
		case "stash":
			return rest[0] === "drop" || rest[0] === "clear";
		case "restore":
			return !flags.includes("--staged") && !flags.includes("-S");
		case "filter-branch":
		case "filter-repo":
			return true;
		default:
			return false;
	}
}

/** Deletes or overwrites data in a way that is hard to undo. */
export function isDestructiveCommand(c: SimpleCommand): boolean {
	const flags = c.normalized.flags;
	if (ALWAYS_DESTRUCTIVE.has(c.program) || /^mkfs(?:\..+)?$/.test(c.program)) return true;
	switch (c.program) {
		case "rm":
			return flags.includes("-r");
		case "chmod":
		case "chown":
		case "chgrp":
			return flags.includes("-R");
		case "find":
			return c.argv.includes("-delete");
		case "git":
			return isDestructiveGit(c);
		default:
			return false;
	}
}
