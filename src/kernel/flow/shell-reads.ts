/**
 * What a shell command may read beyond the files it names: the directories a recursive reader
 * walks, the globs the shell expands, the commits a git command sends, and — for a program whose
 * reads cannot be known before it runs — the whole workspace. Read from the parse, per program, as
 * data: the caller labels each scope by what lies in it (shell-scope-label.ts).
 */
import type { ShellWord, SimpleCommand } from "../admission/shell/shell-types.js";
import { GIT_COMMANDS } from "./git-alias.js";
import { type RevisionScope, revisionReads } from "./git-revision-reads.js";
import { scanArgs } from "./shell-egress-args.js";
import { inlineCode } from "./shell-egress-inline.js";
import { isUrl, remoteSpec } from "./shell-egress-sinks.js";
import * as path from "node:path";

/** Git commands that send repository content somewhere, and which commits' objects they carry. */
export type GitSendKind = "push" | "format-patch" | "send-email" | "bundle" | "archive" | "request-pull";

export type ReadScope =
	/** A directory (or file) read with everything below it. */
	| { kind: "tree"; path: string; via: string }
	/** A word the shell expands to files before the program runs (`*.env`, `.*`, `config/**`). */
	| { kind: "glob"; pattern: string; recursive: boolean; via: string }
	/**
	 * The objects a git command sends: those reachable from `revs` and not from `exclude`. `worktree`
	 * when the same command line may commit first (`git add -A && git commit && git push`): what is
	 * sent is then the working tree, which is not committed when the command is read.
	 */
	| { kind: "git"; send: GitSendKind; revs: string[]; exclude: string[]; worktree: boolean; cwd?: string; via: string }
	/**
	 * Files a git command prints from the repository (git-revision-reads.ts): labelled by the paths
	 * inside the revisions it names. `gitDir` as `--git-dir` or `GIT_DIR` gave it; `worktree` as for a send;
	 * `elsewhere` when the repository is only known at run time (secret: it may lie outside the workspace).
	 */
	| { kind: "revision"; revision: RevisionScope; worktree: boolean; cwd?: string; gitDir?: string; elsewhere?: boolean; via: string }
	/** A sub-command that may be an alias of the repository's config (git-alias.ts): what it expands to is read there. */
	| { kind: "git-alias"; sub: string; rest: ShellWord[]; worktree: boolean; cwd?: string; gitDir?: string; via: string }
	/** Reads only known when it runs: everything in the workspace. */
	| { kind: "workspace"; via: string };

/** How one program reads directories: recursively always, or when given one of `recursive`. */
export interface TreeReaderSpec {
	/** Flags that make it walk directories; "always" for programs that always do. */
	recursive: "always" | readonly string[];
	/** Options whose value is the next word (so that value is not taken for a path). */
	values: readonly string[];
	/** The first operand is a pattern, not a path, unless one of these options gives the pattern. */
	patternFirst?: readonly string[];
	/** With no path operand it reads the current directory. */
	defaultsToCwd?: boolean;
	/** Which operands are read: all, all but the last (a copy's destination), or all but the first (an archive's name). */
	sources?: "all" | "all-but-last" | "all-but-first";
	/** The first operand is a sub-command, and only these read (7z's `a`, `u`). */
	subcommands?: readonly string[];
}

const GREP_VALUES = ["-e", "--regexp", "-f", "--file", "-m", "--max-count", "-A", "-B", "-C", "--context", "--include", "--exclude", "--exclude-dir", "--exclude-from", "-d", "--directories", "-D", "--devices", "--label", "--color", "--colour", "--binary-files"];
const RG_VALUES = ["-e", "--regexp", "-f", "--file", "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "-m", "--max-count", "-A", "-B", "-C", "--context", "-M", "--max-columns", "-j", "--threads", "--max-depth", "-d", "--max-filesize", "-E", "--encoding", "--color", "--colors", "-r", "--replace", "--sort", "--sortr", "--type-add", "--ignore-file", "--path-separator", "--pre-glob", "--engine"];

/**
 * Programs that read whole directories they are given. `du` and `ls -R` walk trees too but read
 * names and sizes, not content: they are not here.
 */
export const TREE_READERS: Readonly<Record<string, TreeReaderSpec>> = {
	grep: { recursive: ["-r", "-R", "--recursive", "--dereference-recursive", "-d recurse", "--directories=recurse"], values: GREP_VALUES, patternFirst: ["-e", "--regexp", "-f", "--file"], defaultsToCwd: true },
	egrep: { recursive: ["-r", "-R", "--recursive", "--dereference-recursive"], values: GREP_VALUES, patternFirst: ["-e", "--regexp", "-f", "--file"], defaultsToCwd: true },
	fgrep: { recursive: ["-r", "-R", "--recursive", "--dereference-recursive"], values: GREP_VALUES, patternFirst: ["-e", "--regexp", "-f", "--file"], defaultsToCwd: true },
	rg: { recursive: "always", values: RG_VALUES, patternFirst: ["-e", "--regexp", "-f", "--file", "--files"], defaultsToCwd: true },
	ag: { recursive: "always", values: ["-G", "--file-search-regex", "-A", "-B", "-C", "-m", "--max-count", "--ignore", "--depth", "-p", "--path-to-ignore"], patternFirst: [], defaultsToCwd: true },
	ack: { recursive: "always", values: ["--type", "-A", "-B", "-C", "-m", "--max-count", "--ignore-dir", "--ignore-file", "--match"], patternFirst: ["--match"], defaultsToCwd: true },
	cp: { recursive: ["-r", "-R", "-a", "--recursive", "--archive"], values: ["-t", "--target-directory", "-S", "--suffix", "--backup", "--sparse", "--reflink", "--preserve", "--no-preserve"], sources: "all-but-last" },
	scp: { recursive: ["-r"], values: ["-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X"], sources: "all-but-last" },
	rsync: {
		recursive: ["-r", "-a", "--recursive", "--archive"],
		values: ["-e", "--rsh", "--rsync-path", "-f", "--filter", "--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "--log-file", "--password-file", "--port", "-T", "--temp-dir", "--backup-dir", "--compare-dest", "--link-dest", "--copy-dest", "-B", "--block-size", "--bwlimit", "--timeout", "--contimeout", "--chmod", "--chown", "-M", "--remote-option", "--out-format", "--info", "--debug", "--partial-dir", "--suffix", "--max-size", "--min-size", "--sockopts", "--iconv", "--address"],
		sources: "all-but-last",
	},
	zip: { recursive: ["-r", "-R", "--recurse-paths", "--recurse-patterns"], values: ["-b", "-n", "--suffixes", "-t", "-tt", "-x", "--exclude", "-i", "--include", "-P", "--password", "-Z", "--compression-method", "-O", "--output-file"], sources: "all-but-first" },
	"7z": { recursive: "always", values: [], sources: "all-but-first", subcommands: ["a", "u"] },
};

/** Programs that run code Warden does not read: what they open is known only when they run. */
export const UNKNOWN_READERS: ReadonlySet<string> = new Set([
	...["python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "luajit", "Rscript", "osascript"],
	...["pwsh", "powershell", "bash", "sh", "dash", "zsh", "ksh", "fish", "tclsh", "expect", "julia", "java", "jshell", "dotnet", "groovy", "scala", "elixir", "erl", "guile", "racket"],
]);

/** Commands run per file by find -exec / xargs that read only their file operands (so the scope is the walk's). */
export const OPERAND_READERS: ReadonlySet<string> = new Set([
	...["cat", "head", "tail", "grep", "egrep", "fgrep", "rg", "wc", "sort", "uniq", "cut", "base64", "base32", "od", "xxd", "hexdump", "strings", "md5sum", "sha1sum"],
	...["sha256sum", "sha512sum", "cksum", "file", "stat", "nl", "tac", "less", "more", "diff", "cmp", "gzip", "bzip2", "xz", "zcat", "tar", "zip", "cp", "ls"],
]);

/** Commands that take the words they are given as text and read no file. */
const TEXT_ONLY: ReadonlySet<string> = new Set(["echo", "printf", "true", "false", ":", "basename", "dirname", "rm", "rmdir", "touch", "mkdir", "chmod", "chown"]);

const GLOB = /[*?[]/;

/** Tar's bundled first word (`czf out.tgz`): these letters take the next words as values, in order. */
const TAR_LETTER_VALUES = new Set(["f", "C", "T", "X", "b", "K", "N", "g", "L", "V", "H", "I"]);
const TAR_LONG_VALUES = new Set(["--file", "--directory", "--files-from", "--exclude-from", "--blocking-factor", "--starting-file", "--newer", "--listed-incremental", "--tape-length", "--label", "--format", "--use-compress-program", "--exclude", "--transform", "--owner", "--group", "--mode", "--mtime"]);
const TAR_CREATE = new Set(["c", "r", "u", "A"]);
const TAR_CREATE_LONG = new Set(["--create", "--append", "--update", "--catenate", "--concatenate"]);

/** Git global options that take a value. */
const GIT_GLOBAL_VALUES = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--list-cmds"]);
/** Git sub-commands that make commits or stage content: a send later on the same line may carry the working tree. */
export const GIT_COMMITTERS: ReadonlySet<string> = new Set(["add", "commit", "am", "apply", "merge", "cherry-pick", "rebase", "revert", "stash", "notes", "fast-import", "update-index", "update-ref", "commit-tree", "hash-object", "read-tree", "write-tree", "mktree", "tag", "pull"]);
const GIT_SEND: Readonly<Record<string, GitSendKind>> = {
	push: "push",
	"format-patch": "format-patch",
	"send-email": "send-email",
	bundle: "bundle",
	archive: "archive",
	"request-pull": "request-pull",
};
/** Options of each send whose value is the next word, so the value is not read as a revision. */
const GIT_SEND_VALUES: Readonly<Record<GitSendKind, ReadonlySet<string>>> = {
	push: new Set(["--repo", "--receive-pack", "--exec", "-o", "--push-option", "--force-with-lease", "--signed"]),
	"format-patch": new Set(["-o", "--output-directory", "--subject-prefix", "--to", "--cc", "--from", "--in-reply-to", "--suffix", "-v", "--reroll-count", "--base", "--interdiff", "--range-diff", "--signature", "--signature-file", "--start-number", "--filename-max-length"]),
	"send-email": new Set(["--to", "--cc", "--bcc", "--from", "--subject", "--in-reply-to", "--smtp-server", "--smtp-server-port", "--smtp-user", "--smtp-pass", "--smtp-encryption", "--identity", "--to-cmd", "--cc-cmd", "--annotate", "-v", "--reroll-count"]),
	bundle: new Set(["--version"]),
	archive: new Set(["--format", "-o", "--output", "--prefix", "--remote", "--exec", "--add-file", "--add-virtual-file"]),
	"request-pull": new Set([]),
};

function staticValue(w: ShellWord | undefined): string | undefined {
	return w?.static ? w.value : undefined;
}

/** A word that names a path: a glob is expanded by the shell, anything else is read as written. */
function pathScope(word: ShellWord, via: string): ReadScope | undefined {
	if (!word.static) return { kind: "workspace", via: `${via}: a path only known at run time` };
	const v = word.value;
	if (v === "" || v === "-" || isUrl(v) || remoteSpec(v)) return undefined;
	return GLOB.test(v) ? { kind: "glob", pattern: v, recursive: true, via } : { kind: "tree", path: v, via };
}

function isRecursive(spec: TreeReaderSpec, c: SimpleCommand): boolean {
	if (spec.recursive === "always") return true;
	const wanted = new Set(spec.recursive);
	const scanned = scanArgs(c.args, new Set(spec.values));
	return scanned.options.some((o) => wanted.has(o.name) || (o.value?.static === true && wanted.has(`${o.name} ${o.value.value}`)) || wanted.has(`${o.name}=${o.value?.value ?? ""}`));
}

function treeReads(spec: TreeReaderSpec, c: SimpleCommand): ReadScope[] {
	if (!isRecursive(spec, c)) return [];
	const scanned = scanArgs(c.args, new Set(spec.values));
	let operands = [...scanned.operands];
	if (spec.subcommands) {
		const sub = operands.shift();
		if (!sub?.static || !spec.subcommands.includes(sub.value)) return sub?.static ? [] : [{ kind: "workspace", via: `${c.program} with a sub-command only known at run time` }];
	}
	if (spec.patternFirst && !scanned.options.some((o) => spec.patternFirst!.includes(o.name))) operands.shift();
	// cp -t DIR / --target-directory: every operand is a source.
	const targetGiven = scanned.options.some((o) => o.name === "-t" || o.name === "--target-directory");
	if (spec.sources === "all-but-last" && !targetGiven) operands = operands.slice(0, -1);
	if (spec.sources === "all-but-first") operands = operands.slice(1);
	if (operands.length === 0) return spec.defaultsToCwd ? [{ kind: "tree", path: ".", via: c.program }] : [];
	return operands.flatMap((w) => pathScope(w, c.program) ?? []);
}

/** tar: when it creates, its path operands are trees; its mode letters and their values are not paths. */
function tarReads(c: SimpleCommand): ReadScope[] {
	const args = c.args;
	let creating = false;
	let dir = "";
	const paths: ShellWord[] = [];
	const out: ReadScope[] = [];
	const takes: string[] = [];
	let start = 0;
	// The old style: a first word without a dash is a bundle of letters.
	const first = staticValue(args[0]);
	if (first !== undefined && /^[A-Za-z]+$/.test(first)) {
		for (const letter of first) {
			if (TAR_CREATE.has(letter)) creating = true;
			if (TAR_LETTER_VALUES.has(letter)) takes.push(letter);
		}
		start = 1;
	}
	for (let i = start; i < args.length; i++) {
		const w = args[i]!;
		const v = w.value;
		if (takes.length > 0 && !(w.static && v.startsWith("-"))) {
			const letter = takes.shift()!;
			if (letter === "C" && w.static) dir = v;
			if (letter === "T") out.push({ kind: "workspace", via: "tar -T: the names come from a list" });
			continue;
		}
		if (w.static && v.startsWith("--")) {
			const eq = v.indexOf("=");
			const name = eq === -1 ? v : v.slice(0, eq);
			if (TAR_CREATE_LONG.has(name)) creating = true;
			const value = eq !== -1 ? v.slice(eq + 1) : TAR_LONG_VALUES.has(name) ? staticValue(args[++i]) : undefined;
			if (name === "--directory" && value !== undefined) dir = value;
			if (name === "--files-from") out.push({ kind: "workspace", via: "tar --files-from: the names come from a list" });
			continue;
		}
		if (w.static && v.startsWith("-") && v !== "-") {
			for (const letter of v.slice(1)) {
				if (TAR_CREATE.has(letter)) creating = true;
				if (TAR_LETTER_VALUES.has(letter)) takes.push(letter);
			}
			continue;
		}
		paths.push(dir !== "" && w.static && !v.startsWith("/") ? { value: `${dir.replace(/\/+$/, "")}/${v}`, static: true } : w);
	}
	if (!creating) return out;
	return [...out, ...paths.flatMap((w) => pathScope(w, "tar") ?? [])];
}

/** find: its paths are walked; content is read only by what -exec runs (names alone are not content). */
function findReads(c: SimpleCommand): ReadScope[] {
	const paths: ShellWord[] = [];
	let i = 0;
	for (; i < c.args.length; i++) {
		const v = c.args[i]!.value;
		if (c.args[i]!.static && (v.startsWith("-") || v === "(" || v === "!")) break;
		paths.push(c.args[i]!);
	}
	const actions = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
	const runs: string[] = [];
	for (let j = i; j < c.args.length; j++) {
		if (actions.has(c.args[j]!.value)) runs.push(c.args[j + 1]?.static ? c.args[j + 1]!.value.replace(/^.*\//, "") : "");
	}
	if (runs.length === 0) return [];
	if (runs.some((p) => !OPERAND_READERS.has(p) && !TEXT_ONLY.has(p))) return [{ kind: "workspace", via: "find -exec with a program whose reads Warden does not know" }];
	if (runs.every((p) => TEXT_ONLY.has(p))) return [];
	const roots = paths.length === 0 ? [{ value: ".", static: true }] : paths;
	return roots.flatMap((w) => pathScope(w, "find -exec") ?? []);
}

/** xargs: the files come from its input, so only a command that reads none stays within what is named. */
function xargsReads(c: SimpleCommand): ReadScope[] {
	const scanned = scanArgs(c.args, new Set(["-a", "--arg-file", "-d", "--delimiter", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars"]));
	const program = scanned.operands[0];
	const name = program?.static ? program.value.replace(/^.*\//, "") : undefined;
	if (program === undefined || (name !== undefined && TEXT_ONLY.has(name))) return [];
	return [{ kind: "workspace", via: "xargs: the files it is given arrive on its input" }];
}

/** The remote a push names, when it is a configured remote's name (not a URL or path). */
function remoteName(word: string | undefined): string | undefined {
	if (word === undefined || isUrl(word) || remoteSpec(word) || word.includes("/") || word.startsWith(".")) return undefined;
	return /^[A-Za-z0-9_.-]+$/.test(word) ? word : undefined;
}

/** A git command's sub-command, the words after it, and where it finds its repository (`-C`, `--git-dir`, `GIT_DIR`). */
interface GitInvocation {
	sub: string;
	rest: ShellWord[];
	cwd?: string;
	gitDir?: string;
	/** Set when where it runs or what it runs is only known at run time (`-C $D`, `-c alias.x=…`). */
	unknown?: string;
	/** Where it runs is only known at run time: its repository may lie outside the workspace. */
	elsewhere?: boolean;
}

function gitSub(c: SimpleCommand): GitInvocation | undefined {
	let cwd: string | undefined;
	let gitDir = c.env.find((e) => e.name === "GIT_DIR")?.value;
	let unknown: string | undefined;
	let elsewhere = false;
	let index = 0;
	for (; index < c.args.length; index++) {
		const w = c.args[index]!;
		if (!w.static || !w.value.startsWith("-")) break;
		if (w.value.startsWith("--git-dir=")) gitDir = w.value.slice("--git-dir=".length);
		if (GIT_GLOBAL_VALUES.has(w.value)) {
			const value = c.args[index + 1];
			// Each -C is taken relative to the one before.
			if (w.value === "-C") {
				if (value?.static) cwd = cwd === undefined ? value.value : path.posix.join(cwd, value.value);
				else {
					unknown = "git -C with a directory only known at run time";
					elsewhere = true;
				}
			}
			if (w.value === "--git-dir") {
				if (value?.static) gitDir = value.value;
				else {
					unknown = "git --git-dir only known at run time";
					elsewhere = true;
				}
			}
			// An alias set on the command line may run any sub-command, or a shell.
			if (w.value === "-c" && (!value?.static || /^alias\./i.test(value.value))) unknown = "git -c alias: a sub-command only known at run time";
			index++;
		}
	}
	const sub = c.args[index];
	if (!sub?.static) return undefined;
	return { sub: sub.value, rest: c.args.slice(index + 1), ...(cwd !== undefined ? { cwd } : {}), ...(gitDir !== undefined ? { gitDir } : {}), ...(unknown !== undefined ? { unknown } : {}), ...(elsewhere ? { elsewhere } : {}) };
}

/** What one git send carries: the revisions it names, and what the destination already has. */
function gitSend(send: GitSendKind, rest: ShellWord[], cwd: string | undefined, worktree: boolean): ReadScope {
	const scanned = scanArgs(rest, GIT_SEND_VALUES[send]);
	const words = scanned.operands.map((w) => (w.static ? w.value : undefined));
	const base = { kind: "git" as const, send, worktree, via: `git ${send}`, ...(cwd !== undefined ? { cwd } : {}) };
	if (words.some((w) => w === undefined)) return { kind: "workspace", via: `git ${send}: a revision only known at run time` };
	const ops = words as string[];
	const flag = (...names: string[]) => scanned.options.some((o) => names.includes(o.name));
	switch (send) {
		case "push": {
			const [destination, ...specs] = ops;
			const remote = remoteName(destination);
			// What a named remote already has is its remote-tracking refs; a URL or path may have nothing.
			const exclude = remote ? [`--remotes=${remote}/*`] : [];
			if (flag("--all", "--mirror") || specs.length === 0) return { ...base, revs: flag("--tags") ? ["--all"] : specs.length === 0 && !flag("--all", "--mirror") ? ["HEAD"] : ["--all"], exclude };
			const revs = specs.map((s) => s.replace(/^\+/, "").split(":")[0]!).filter((s) => s !== "");
			return { ...base, revs: revs.length > 0 ? revs : ["HEAD"], exclude };
		}
		case "bundle": {
			// `git bundle create <file> <rev-list-args>`.
			const [action, _file, ...revs] = ops;
			if (action !== "create") return { ...base, revs: [], exclude: [] };
			return { ...base, revs: flag("--all") || revs.length === 0 ? ["--all"] : revs, exclude: [] };
		}
		case "archive": {
			const tree = ops[0] ?? "HEAD";
			return { ...base, revs: [tree], exclude: [] };
		}
		default: {
			// format-patch / send-email / request-pull: `<since>` means since..HEAD; `a..b` as written; `-<n>` the last n.
			const ranges = ops.filter((o) => !o.startsWith("-"));
			if (ranges.length === 0) return { ...base, revs: ["HEAD"], exclude: [] };
			const revs: string[] = [];
			const exclude: string[] = [];
			for (const r of ranges) {
				const dots = r.indexOf("..");
				if (dots !== -1) {
					if (r.slice(0, dots) !== "") exclude.push(r.slice(0, dots).replace(/^\./, ""));
					revs.push(r.slice(dots).replace(/^\.+/, "") || "HEAD");
				} else if (ranges.length === 1 && send === "format-patch") {
					exclude.push(r);
					revs.push("HEAD");
				} else revs.push(r);
			}
			return { ...base, revs, exclude };
		}
	}
}

function gitReads(c: SimpleCommand, committedBefore: boolean): ReadScope[] {
	const found = gitSub(c);
	if (!found) return c.args.length === 0 ? [] : [{ kind: "workspace", via: "git with a sub-command only known at run time" }];
	const where = { ...(found.cwd !== undefined ? { cwd: found.cwd } : {}), ...(found.gitDir !== undefined ? { gitDir: found.gitDir } : {}) };
	// What is only known at run time may be any file of the tree, or of any revision the repository holds.
	const anything = (via: string): ReadScope[] => [
		{ kind: "workspace", via },
		{ kind: "revision", revision: EVERY_REVISION, worktree: committedBefore, ...where, ...(found.elsewhere ? { elsewhere: true } : {}), via },
	];
	if (found.unknown) return anything(found.unknown);
	const out: ReadScope[] = [];
	const send = Object.hasOwn(GIT_SEND, found.sub) ? GIT_SEND[found.sub] : undefined;
	if (send) out.push(gitSend(send, found.rest, found.cwd, committedBefore));
	const revision = revisionReads(found.sub, found.rest);
	if (revision && "unknown" in revision) out.push(...anything(revision.unknown));
	else if (revision) {
		out.push({ kind: "revision", revision: revision.scope, worktree: committedBefore, ...where, via: `git ${found.sub}` });
	} else if (found.sub === "grep") out.push({ kind: "tree", path: found.cwd ?? ".", via: "git grep" });
	else if (!GIT_COMMANDS.has(found.sub)) {
		out.push({ kind: "git-alias", sub: found.sub, rest: found.rest, worktree: committedBefore, ...where, via: `git ${found.sub}` });
	}
	return out;
}

/** The scopes one sub-command may read; `committedBefore` when an earlier git command on the line makes commits. */
/** Every revision the repository's refs, reflogs and index hold: what git may print when its revisions arrive at run time. */
export const EVERY_REVISION: RevisionScope = { reads: [{ kind: "history", rev: "--all" }, { kind: "history", rev: "--reflog" }, { kind: "index" }], paths: [] };

export function commandReads(c: SimpleCommand, committedBefore = false): ReadScope[] {
	// `… | xargs git show`, `find -exec git cat-file -p {}`: the revisions come from the input.
	if (c.argsFromInput && c.program === "git") {
		const revision: ReadScope = { kind: "revision", revision: EVERY_REVISION, worktree: committedBefore, via: "git with revisions from its input" };
		return c.wrappers.includes("xargs") ? [{ kind: "workspace", via: "xargs: the files it is given arrive on its input" }, revision] : [revision];
	}
	// A command run per input line or per found file (xargs, find -exec): find's scope is find's own.
	if (c.argsFromInput && c.wrappers.includes("xargs")) {
		return TEXT_ONLY.has(c.program) ? [] : [{ kind: "workspace", via: "xargs: the files it is given arrive on its input" }];
	}
	if (c.argsFromInput && c.wrappers.some((w) => w.startsWith("find "))) return [];
	if (c.opaque || !c.programKnown) return [{ kind: "workspace", via: c.opaqueReason ?? "a program only known at run time" }];
	if (inlineCode(c) !== undefined) return [{ kind: "workspace", via: `${c.program} running inline code` }];
	if (UNKNOWN_READERS.has(c.program) || /^(python|pypy)[0-9.]*$/.test(c.program)) {
		// An interpreter with no operand reads its program from its input, which is data too.
		return [{ kind: "workspace", via: `${c.program} running a program Warden does not read` }];
	}
	if (c.program === "tar" || c.program === "bsdtar" || c.program === "gtar") return tarReads(c);
	if (c.program === "find") return findReads(c);
	if (c.program === "xargs") return xargsReads(c);
	if (c.program === "git") return gitReads(c, committedBefore);
	if (Object.hasOwn(TREE_READERS, c.program)) return treeReads(TREE_READERS[c.program]!, c);
	return [];
}

/** Whether this sub-command makes commits a later git send on the same line would carry. */
export function commitsContent(c: SimpleCommand): boolean {
	if (c.program !== "git") return false;
	const found = gitSub(c);
	return found !== undefined && GIT_COMMITTERS.has(found.sub);
}

/** Every scope the sub-commands of one command line may read, in order. */
export function shellReads(commands: readonly SimpleCommand[]): ReadScope[] {
	const out = new Map<string, ReadScope>();
	let committed = false;
	for (const c of commands) {
		for (const scope of commandReads(c, committed)) {
			const key = JSON.stringify({ ...scope, via: undefined });
			if (!out.has(key)) out.set(key, scope);
		}
		if (commitsContent(c)) committed = true;
	}
	return [...out.values()];
}
