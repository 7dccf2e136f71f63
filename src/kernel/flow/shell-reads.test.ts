import { beforeAll, describe, expect, it } from "vitest";
import { ShellParser } from "../admission/shell/shell-parser.js";
import { type ReadScope, shellReads, TREE_READERS, UNKNOWN_READERS } from "./shell-reads.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

const reads = (command: string): ReadScope[] => shellReads(parser.parse(command).commands);
/** A compact view: `tree:src`, `glob:*.env`, `git:push HEAD ^x`, `workspace`. */
function view(command: string): string[] {
	return reads(command).map((s) => {
		switch (s.kind) {
			case "tree":
				return `tree:${s.path}`;
			case "glob":
				return `glob:${s.pattern}`;
			case "git":
				return `git:${s.send} ${[...s.revs, ...s.exclude.map((e) => `^${e}`)].join(" ")}${s.worktree ? " +worktree" : ""}`;
			case "revision":
				return `revision:${s.revision.reads.map((r) => ("rev" in r ? `${r.kind} ${r.rev}` : r.kind)).join(", ")}${s.worktree ? " +worktree" : ""}`;
			default:
				return "workspace";
		}
	});
}

/** One row per program of TREE_READERS: the command, and the scopes it reads. */
const TREE_ROWS: [string, string, string[]][] = [
	["grep", "grep -r sk- .", ["tree:."]],
	["egrep", "egrep -R 'a|b' src docs", ["tree:src", "tree:docs"]],
	["fgrep", "fgrep -r token lib", ["tree:lib"]],
	["rg", "rg -n NOTE src", ["tree:src"]],
	["ag", "ag secret", ["tree:."]],
	["ack", "ack -i key config", ["tree:config"]],
	["cp", "cp -r src /tmp/out", ["tree:src"]],
	["scp", "scp -r dist host:/srv", ["tree:dist"]],
	["rsync", "rsync -a . host:backup", ["tree:."]],
	["zip", "zip -qr out.zip .", ["tree:."]],
	["7z", "7z a out.7z docs", ["tree:docs"]],
];

describe("recursive readers (one row per program)", () => {
	it("has a row for every program in the table", () => {
		expect(TREE_ROWS.map((r) => r[0]).sort()).toEqual(Object.keys(TREE_READERS).sort());
	});
	for (const [program, command, expected] of TREE_ROWS) {
		it(`${program}: ${command}`, () => {
			expect(view(command)).toEqual(expected);
		});
	}

	it("reads nothing beyond the names without its recursive flag", () => {
		expect(view("grep sk- .env")).toEqual([]);
		expect(view("cp a b")).toEqual([]);
		expect(view("zip out.zip a.txt")).toEqual([]);
		expect(view("rsync a.txt host:")).toEqual([]);
	});

	it("takes grep's pattern for a path only when -e gives the pattern", () => {
		expect(view("grep -r -e sk- src")).toEqual(["tree:src"]);
		expect(view("grep -rn -- sk- src")).toEqual(["tree:src"]);
		expect(view("grep -d recurse key lib")).toEqual(["tree:lib"]);
	});

	it("copies with -t read every operand", () => {
		expect(view("cp -r -t /tmp/out src docs")).toEqual(["tree:src", "tree:docs"]);
	});

	it("a glob operand of a recursive reader is expanded with what lies below", () => {
		expect(reads("grep -r key conf*")).toEqual([{ kind: "glob", pattern: "conf*", recursive: true, via: "grep" }]);
	});

	it("du and ls -R read names, not content", () => {
		expect(view("du -sh .")).toEqual([]);
		expect(view("ls -R .")).toEqual([]);
	});
});

describe("tar", () => {
	it("names `.`, not its mode letters", () => {
		expect(view("tar cz .")).toEqual(["tree:."]);
		expect(view("tar czf out.tgz dist")).toEqual(["tree:dist"]);
		expect(view("tar -czf out.tgz -C build app")).toEqual(["tree:build/app"]);
		expect(view("tar --create --file=x.tar src")).toEqual(["tree:src"]);
	});

	it("reads no tree when it extracts or lists", () => {
		expect(view("tar xzf in.tgz")).toEqual([]);
		expect(view("tar -tf in.tar")).toEqual([]);
	});

	it("a list of names only known at run time is the whole workspace", () => {
		expect(view("tar -czf x.tgz -T list.txt")).toEqual(["workspace"]);
	});
});

describe("find and xargs", () => {
	it("find reads content only through what -exec runs", () => {
		expect(view("find . -name '*.txt'")).toEqual([]);
		expect(view("find src -type f -exec cat {} +")).toEqual(["tree:src"]);
		expect(view("find -exec grep -l key {} ;")).toEqual(["tree:."]);
		expect(view("find . -exec echo {} ;")).toEqual([]);
	});

	it("find -exec with a program it does not know reads anything", () => {
		expect(view("find . -exec python3 {} ;")).toEqual(["workspace"]);
	});

	it("xargs reads files named on its input: the whole workspace, unless it only prints", () => {
		expect(view("ls | xargs cat")).toEqual(["workspace"]);
		expect(view("ls | xargs echo")).toEqual([]);
	});
});

describe("programs whose reads cannot be known", () => {
	for (const program of ["python3", "node", "perl", "ruby", "bash"]) {
		it(`${program} running a script or inline code reads the whole workspace`, () => {
			expect(view(`${program} x`)).toEqual(["workspace"]);
		});
	}

	it("every program in the table is one Warden cannot read", () => {
		for (const program of UNKNOWN_READERS) expect(view(`${program} run.x`), program).toEqual(["workspace"]);
	});

	it("inline code and a program only known at run time too", () => {
		expect(view("python3 -c 'print(open(\".env\").read())'")).toEqual(["workspace"]);
		expect(view("$TOOL x")).toEqual(["workspace"]);
	});
});

describe("git sends", () => {
	it("a push to a URL sends every commit its refs reach", () => {
		expect(view("git push https://h.example/r.git HEAD")).toEqual(["git:push HEAD"]);
		expect(view("git push /srv/r.git main:refs/heads/main")).toEqual(["git:push main"]);
	});

	it("a push to a named remote sends what its tracking refs lack", () => {
		expect(view("git push origin main")).toEqual(["git:push main ^--remotes=origin/*"]);
		expect(view("git push --all origin")).toEqual(["git:push --all ^--remotes=origin/*"]);
	});

	it("after a commit on the same line it sends the working tree", () => {
		expect(view("git add -A && git commit -m x && git push https://h.example/r.git HEAD")).toEqual(["git:push HEAD +worktree"]);
	});

	it("format-patch, bundle and archive carry their revisions", () => {
		expect(view("git format-patch origin/main")).toEqual(["git:format-patch HEAD ^origin/main", "revision:history origin/main"]);
		expect(view("git format-patch a..b")).toEqual(["git:format-patch b ^a", "revision:history a, history b"]);
		expect(view("git bundle create x.bundle --all")).toEqual(["git:bundle --all"]);
		expect(view("git archive --format=tar HEAD")).toEqual(["git:archive HEAD", "revision:object HEAD"]);
		expect(view("git send-email --to a@b.c HEAD~2..HEAD")).toEqual(["git:send-email HEAD ^HEAD~2"]);
	});

	it("sub-command names and flags are not files, and local git reads send nothing", () => {
		expect(view("git add -A")).toEqual([]);
		expect(view("git status")).toEqual([]);
		expect(view("git log --oneline")).toEqual([]);
	});

	it("a read that prints files from revisions reads those revisions (git-revision-reads.test.ts has a row per sub-command)", () => {
		expect(view("git log -p")).toEqual(["revision:history HEAD"]);
		expect(view("git -C sub show HEAD:.env")).toEqual(["revision:patch HEAD:.env"]);
		expect(reads("git -C a -C b --git-dir=../g.git show HEAD")).toMatchObject([{ kind: "revision", cwd: "a/b", gitDir: "../g.git" }]);
		expect(reads("GIT_DIR=elsewhere git cat-file -p HEAD:.env")).toMatchObject([{ kind: "revision", gitDir: "elsewhere" }]);
		expect(view("git add .env && git commit -qm x && git show HEAD:.env")).toEqual(["revision:patch HEAD:.env +worktree"]);
		expect(view("git -c alias.s=show s HEAD:.env")).toEqual(["workspace", "revision:history --all, history --reflog, index"]);
		expect(view('git show "$REV":.env')).toEqual(["workspace", "revision:history --all, history --reflog, index"]);
		expect(reads('git -C "$D" show HEAD:.env')).toMatchObject([{ kind: "workspace" }, { kind: "revision", elsewhere: true }]);
	});
});
