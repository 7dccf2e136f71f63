import { beforeAll, describe, expect, it } from "vitest";
import { braced } from "../test-support/policy-fixtures.js";
import { ShellParser } from "./shell-parser.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

const commands = (source: string) => parser.parse(source).commands;

describe("words whose expansion runs code make their command opaque", () => {
	it.each([
		`echo ${braced("x@P")}`,
		`echo "${braced("x@P")}"`,
		`echo "${braced("var1=aa\\140 env| ls -l\\140")}${braced("var1@P")}"`,
		"echo $(( a[$(touch pwned)] ))",
		"x=$(cat v); echo $((x))",
		`echo ${braced("a[$(touch p)]")}`,
		`echo ${braced("x:-$(touch p)")}`,
		`echo "${braced("x:-'$(touch p)'")}"`,
		`echo ${braced("!ref")}`,
		`cat < ${braced("x@P")}`,
		`ls > /dev/null 2> ${braced("x@P")}`,
		`export A=${braced("x@P")}`,
		`LC_ALL=${braced("x@P")} ls`,
		`sudo ls ${braced("x@P")}`,
	])("%s", (source) => {
		const marked = commands(source).filter((c) => c.opaque);
		expect(marked.length, source).toBe(1);
		expect(marked[0]!.opaqueReason).toContain("may run code");
	});

	it("still lists the commands a substitution inside shows", () => {
		expect(commands(`echo ${braced("x:-$(touch p)")}`).map((c) => c.program)).toEqual(["echo", "touch"]);
		expect(commands("echo $(( a[$(touch pwned)] ))").map((c) => c.program)).toEqual(["echo", "touch"]);
	});

	it("gives [[ … ]] and (( … )) a command of their own, opaque when they evaluate values", () => {
		const test = commands("[[ -v a[$(touch p)] ]] && ls");
		expect(test.map((c) => c.program)).toEqual(["[[", "touch", "ls"]);
		expect(test[0]!.opaque).toBe(true);
		expect(commands("[[ -v 'a[1]' ]]")[0]!.opaque).toBe(true);
		expect(commands("[[ $x -eq 0 ]]")[0]!.opaque).toBe(true);
		expect(commands("(( a[1] + x ))")[0]!.opaque).toBe(true);
		expect(commands("for ((i=0;i<3;i++)); do echo; done")[0]!.opaque).toBe(true);
		for (const plain of ["[[ -v x ]]", "[[ -f notes.md && 3 -gt 1 ]]", "(( 1 + 2 ))", "[[ $# -eq 0 ]]"]) {
			expect(commands(plain)[0]!.opaque, plain).toBe(false);
		}
	});

	it("looks into unquoted heredoc bodies and here-strings, not quoted heredocs", () => {
		expect(commands(`cat <<END\n${braced("x@P")}\nEND`)[0]!.opaque).toBe(true);
		expect(commands(`cat <<< "${braced("x@P")}"`)[0]!.opaque).toBe(true);
		expect(commands(`cat <<'END'\n${braced("x@P")}\nEND`)[0]!.opaque).toBe(false);
		expect(commands("cat <<END\nplain $HOME\nEND")[0]!.opaque).toBe(false);
	});

	it("leaves plain and escaped expansions alone", () => {
		for (const source of ["echo $HOME", `echo ${braced("x:-default")} ${braced("#x")} $((1+2))`, "echo \\$HOME", `echo '${braced("x@P")}'`, `echo \\${braced("x@P")}`, "grep '\\$x' notes.md"]) {
			expect(commands(source)[0]!.opaque, source).toBe(false);
		}
	});
});
