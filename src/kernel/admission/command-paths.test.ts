import { beforeAll, describe, expect, it } from "vitest";
import { outsideWorkspace, type PathScope, pathWords, possibleCwds } from "./command-paths.js";
import { ShellParser } from "./shell/shell-parser.js";
import { HOME, symlinkResolver, WORKSPACE } from "./test-support/policy-fixtures.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

const scope: PathScope = {
	workspace: WORKSPACE,
	home: HOME,
	resolvePath: symlinkResolver({ [`${WORKSPACE}/up`]: "/ws", [`${WORKSPACE}/docs/shared.md`]: "/srv/shared/notes.md" }),
};

/** What a sub-command of the script (the last by default) reaches outside the workspace, if anything. */
function outside(command: string, withScope = scope, index = -1): string | undefined {
	const parsed = parser.parse(command);
	return outsideWorkspace(parsed.commands.at(index)!, parsed, withScope);
}

describe("pathWords", () => {
	const words = (command: string): string[] => pathWords(parser.parse(command).commands[0]!).map((w) => w.value);

	it("takes operands, option values and input redirects", () => {
		expect(words("cat a.txt b.txt < in.txt")).toEqual(["a.txt", "b.txt", "in.txt"]);
		expect(words("git -C /tmp/repo --git-dir=/x/.git log")).toEqual(["log", "/x/.git", "/tmp/repo"]);
		expect(words("find / -name x -newer /etc/passwd")).toEqual(["/", "x", "/etc/passwd"]);
	});

	it("skips text: echo's words, grep's pattern, pattern option values", () => {
		expect(words("echo /etc/passwd")).toEqual([]);
		expect(words("grep -rn /api/ src")).toEqual(["src"]);
		expect(words("grep -e /api/ -f pats.txt src")).toEqual(["src", "pats.txt"]);
		expect(words("jq .name /tmp/x.json")).toEqual(["/tmp/x.json"]);
	});
});

describe("possibleCwds", () => {
	it("follows cd and pushd in order", () => {
		const parsed = parser.parse("cd sub && pushd /tmp && ls");
		expect(possibleCwds(parsed.commands[2]!, parsed, scope)).toEqual([WORKSPACE, `${WORKSPACE}/sub`, "/tmp"]);
	});
});

describe("outsideWorkspace", () => {
	it.each(["cat notes.md", "ls -la", "ls src/*.ts", "cat ./a/../b.md", "diff <(ls a) <(ls b)", "ls 2>/dev/null", "cat - < notes.md", "echo $HOME", "git log --oneline"])(
		"finds nothing outside for %s",
		(command) => {
			expect(outside(command)).toBeUndefined();
		},
	);

	it("names a path outside as written", () => {
		expect(outside("cat /etc/hosts")).toBe("/etc/hosts");
		expect(outside("ls ..")).toBe("/ws");
		expect(outside("cat ~/notes.txt")).toBe(`${HOME}/notes.txt`);
		expect(outside("wc -l < /etc/passwd")).toBe("/etc/passwd");
		expect(outside("cd /tmp && cat x")).toBe("/tmp/x");
	});

	it("names a path whose real target is outside", () => {
		expect(outside("ls up")).toBe(`${WORKSPACE}/up is really /ws`);
		expect(outside("cat docs/shared.md")).toBe(`${WORKSPACE}/docs/shared.md is really /srv/shared/notes.md`);
		expect(outside("ls src")).toBeUndefined();
		expect(outside("cat up/other/x")).toBe(`${WORKSPACE}/up/other/x is really /ws/other/x`);
		// Out through a link and back in: what is read is a workspace file.
		expect(outside("cat up/project/notes.md")).toBeUndefined();
		expect(outside("ls up", { workspace: WORKSPACE, home: HOME })).toBeUndefined();
	});

	it("counts a word only known at run time as possibly outside", () => {
		expect(outside('cat "$F"')).toBe("$F is only known at run time");
		expect(outside("cat $(cat list)", scope, 0)).toBe("$(cat list) is only known at run time");
	});
});
