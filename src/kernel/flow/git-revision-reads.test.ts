import { beforeAll, describe, expect, it } from "vitest";
import { ShellParser } from "../admission/shell/shell-parser.js";
import { REVISION_READERS, revisionReads } from "./git-revision-reads.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

/** A compact view of what `git <args>` prints from: `patch HEAD:.env`, `index`, `-- src`; `none` when it prints no file. */
function view(args: string): string {
	const words = parser.parse(`git ${args}`).commands[0]!.args;
	const got = revisionReads(words[0]!.value, words.slice(1));
	if (got === undefined) return "none";
	if ("unknown" in got) return "unknown";
	const reads = got.scope.reads.map((r) => ("rev" in r ? `${r.kind} ${r.rev}` : r.kind)).join(", ");
	return got.scope.paths.length === 0 ? reads : `${reads} -- ${got.scope.paths.join(" ")}`;
}

/** One row per sub-command of REVISION_READERS: a command, what it prints from, and a spelling that prints no file. */
const ROWS: [string, string, string, string | undefined][] = [
	["show", "show HEAD~1:.env", "patch HEAD~1:.env", undefined],
	["cat-file", "cat-file -p :0:.env", "object :0:.env", "cat-file -t HEAD:.env"],
	["log", "log -p --all -- .env", "history --all -- .env", "log --oneline"],
	["whatchanged", "whatchanged -p main", "history main", "whatchanged main"],
	["reflog", "reflog -p", "history --reflog", "reflog"],
	["format-patch", "format-patch --stdout -1 HEAD", "history HEAD", undefined],
	["range-diff", "range-diff a...b", "history a, history b", undefined],
	["fast-export", "fast-export --all", "history --all", undefined],
	["diff-tree", "diff-tree -p HEAD", "patch HEAD", "diff-tree --name-only HEAD"],
	["archive", "archive --format=tar -o /tmp/x.tar main src", "object main -- src", "archive --remote=ssh://h/r HEAD"],
	["blame", "blame HEAD~2 -- .env", "history HEAD~2 -- .env", undefined],
	["annotate", "annotate .env", "history .env", undefined],
	["grep", "grep -n KEY HEAD~3 -- config", "object HEAD~3 -- config", "grep --no-index KEY"],
];

describe("REVISION_READERS", () => {
	it("has a row below for every sub-command", () => {
		expect(ROWS.map((r) => r[0]).sort()).toEqual(Object.keys(REVISION_READERS).sort());
	});

	for (const [sub, args, reads, quiet] of ROWS) {
		it(`${sub}: ${args}`, () => {
			expect(view(args)).toBe(reads);
			if (quiet !== undefined) expect(view(quiet)).toBe("none");
		});
	}
});

describe("revision spellings", () => {
	it("aliases and relative paths are passed to git as written, for git to resolve", () => {
		for (const rev of ["HEAD~1:.env", "main:.env", "@:.env", ":0:.env", ":.env", "HEAD:./.env", "HEAD:../.env", "stash@{0}:.env"]) {
			expect(view(`show ${rev}`)).toBe(`patch ${rev}`);
		}
	});

	it("a range reads both its sides; an excluded revision only narrows", () => {
		expect(view("log -p main..feature")).toBe("history main, history feature");
		expect(view("log -p ..feature ^old")).toBe("history HEAD, history feature");
	});

	it("with no revision each reads its default", () => {
		expect(view("show")).toBe("patch HEAD");
		expect(view("log -p")).toBe("history HEAD");
		expect(view("cat-file --batch")).toBe("all");
	});

	it("a revision only known at run time is unknown", () => {
		expect(view('show "$REV"')).toBe("unknown");
		expect(view("log -p -- $(cat paths)")).toBe("unknown");
	});
});

describe("git diff", () => {
	it("compares the index and the working tree, a revision, or two revisions", () => {
		expect(view("diff")).toBe("index, worktree");
		expect(view("diff HEAD~1")).toBe("object HEAD~1, index, worktree");
		expect(view("diff --cached")).toBe("index, object HEAD");
		expect(view("diff --staged main -- .env")).toBe("object main, index -- .env");
		expect(view("diff a b")).toBe("object a, object b");
		expect(view("diff a..b")).toBe("object a, object b");
		expect(view("diff a...b")).toBe("history a, history b");
		expect(view("diff --no-index a b")).toBe("none");
	});

	it("diff-index and diff-files print files only as a patch", () => {
		expect(view("diff-index HEAD")).toBe("none");
		expect(view("diff-index -p HEAD")).toBe("object HEAD, index, worktree");
		expect(view("diff-files -p")).toBe("index, worktree");
	});
});

describe("git stash", () => {
	it("show reads the stash as a patch (stash.showPatch may be set), list only with -p", () => {
		expect(view("stash show -p")).toBe("patch stash@{0}");
		expect(view("stash show 2")).toBe("patch stash@{2}");
		expect(view("stash list -p")).toBe("history --reflog");
		expect(view("stash list")).toBe("none");
		expect(view("stash push -m x")).toBe("none");
	});
});
