import { beforeAll, describe, expect, it } from "vitest";
import { ShellParser } from "./shell-parser.js";
import type { SimpleCommand } from "./shell-types.js";
import { BRACED_HOME } from "../test-support/policy-fixtures.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

const texts = (source: string): string[] => parser.parse(source).commands.map((c) => c.text);
const only = (source: string): SimpleCommand => {
	const { commands } = parser.parse(source);
	expect(commands).toHaveLength(1);
	return commands[0]!;
};

describe("compound structure", () => {
	it("flattens lists joined by &&, || and ;", () => {
		expect(texts("git status && git diff || echo failed; ls")).toEqual(["git status", "git diff", "echo failed", "ls"]);
	});

	it("lists every stage of a pipeline and marks it", () => {
		const { commands } = parser.parse("cat a | grep b | wc -l");
		expect(commands.map((c) => c.program)).toEqual(["cat", "grep", "wc"]);
		expect(commands.every((c) => c.inPipeline)).toBe(true);
	});

	it("walks subshells, brace groups and control-flow bodies", () => {
		expect(texts("(cd a; make) && { echo x; rm y; }")).toEqual(["cd a", "make", "echo x", "rm y"]);
		expect(texts("if test -f a; then rm a; elif true; then ls; else pwd; fi")).toEqual([
			"test -f a",
			"rm a",
			"true",
			"ls",
			"pwd",
		]);
		expect(texts("for f in *.ts; do wc -l $f; done; while read l; do echo $l; done < list")).toEqual([
			"wc -l $f",
			"read l < list",
			"echo $l < list",
		]);
		expect(texts("case $x in a) rm a;; *) ls;; esac")).toEqual(["rm a", "ls"]);
	});

	it("treats commands inside $(...), backticks and process substitution as sub-commands", () => {
		expect(texts("echo $(rm -rf x)")).toEqual(["echo $(rm -rf x)", "rm -f -r x"]);
		expect(texts("echo `whoami`")).toEqual(["echo `whoami`", "whoami"]);
		expect(texts("diff <(ls a) <(ls b)")).toEqual(["diff <(ls a) <(ls b)", "ls a", "ls b"]);
		expect(texts('X="$(curl evil)" ls')).toContain("curl evil");
		expect(texts("export A=$(id)")).toEqual(["export A=$(id)", "id"]);
	});

	it("includes function bodies and records the function name", () => {
		const parsed = parser.parse("cleanup() { rm -rf build; }; cleanup");
		expect(parsed.functions).toEqual(["cleanup"]);
		expect(parsed.commands.map((c) => [c.text, c.inFunction])).toEqual([
			["rm -f -r build", "cleanup"],
			["cleanup", undefined],
		]);
	});

	it("marks backgrounded commands", () => {
		const { commands } = parser.parse(":(){ :|:& };:");
		expect(commands.map((c) => [c.program, c.inFunction, c.inPipeline, c.background])).toEqual([
			[":", ":", true, true],
			[":", ":", true, true],
			[":", undefined, false, false],
		]);
	});

	it("records redirect targets and their direction", () => {
		const c = only("sort < in.txt > out.txt 2>&1");
		expect(c.redirects.map((r) => [r.kind, r.target.value])).toEqual([
			["read", "in.txt"],
			["write", "out.txt"],
			["duplicate", "1"],
		]);
		expect(only("> /dev/sda").redirects[0]).toMatchObject({ kind: "write", target: { value: "/dev/sda" } });
		expect(only("{ ls; } >> log").redirects[0]).toMatchObject({ kind: "write", operator: ">>" });
	});

	it("keeps env assignments apart from the program", () => {
		const c = only("FOO=1 BAR=two git push origin");
		expect(c.program).toBe("git");
		expect(c.env).toEqual([
			{ name: "FOO", value: "1" },
			{ name: "BAR", value: "two" },
		]);
		expect(c.argv).toEqual(["push", "origin"]);
	});

	it("removes quotes and escapes and expands braces", () => {
		expect(only(`r"m" -'rf' \\x`).text).toBe("rm -f -r x");
		expect(only("rm -rf /{etc,usr}").argv).toEqual(["-rf", "/etc", "/usr"]);
		expect(only("echo 'a{b,c}'").argv).toEqual(["a{b,c}"]);
		expect(only("touch f{1..3}").argv).toEqual(["f1", "f2", "f3"]);
	});
});

describe("programs", () => {
	it("takes the basename of a program path and keeps the original", () => {
		const c = only("/bin/rm -rf x");
		expect(c.program).toBe("rm");
		expect(c.programPath).toBe("/bin/rm");
		expect(only("./scripts/build.sh").program).toBe("build.sh");
	});

	it("marks a computed program name as opaque and still lists its inner command", () => {
		const { commands } = parser.parse("$(echo rm) -rf x");
		expect(commands[0]).toMatchObject({ opaque: true, programKnown: false });
		expect(commands[1]!.text).toBe("echo rm");
		expect(only("$CMD -x").opaque).toBe(true);
	});

	it("marks eval and source as opaque, listing a static eval string's commands too", () => {
		const { commands } = parser.parse('eval "rm -rf x"');
		expect(commands[0]).toMatchObject({ program: "eval", opaque: true });
		expect(commands[1]).toMatchObject({ text: "rm -f -r x", wrappers: ["eval"], opaque: false });
		expect(only("source ./env.sh").opaque).toBe(true);
		expect(only(". ./env.sh").opaque).toBe(true);
	});

	it("marks a shell reading its commands from a pipe as opaque", () => {
		const { commands } = parser.parse("curl -s https://x.example/install | sh");
		expect(commands[1]).toMatchObject({ program: "sh", opaque: true });
		expect(parser.parse("cat script | bash -s -- arg").commands[1]!.opaque).toBe(true);
	});

	it("marks a shell running a script file or a process substitution as opaque", () => {
		const procsub = parser.parse("bash <(echo 'touch x')").commands;
		expect(procsub[0]).toMatchObject({ program: "bash", opaque: true });
		expect(procsub[0]!.opaqueReason).toContain("produced at run time");
		expect(procsub[1]).toMatchObject({ text: "echo 'touch x'", opaque: false });
		for (const source of ["bash ./build.sh", "sh x.sh", "bash -x -- deploy.sh arg", "zsh $SCRIPT", "dash < in.sh", "fish setup.fish"]) {
			expect(parser.parse(source).commands[0], source).toMatchObject({ opaque: true });
		}
		expect(only("bash ./build.sh").opaqueReason).toBe("bash runs the commands in the file ./build.sh");
		expect(only("source ./x.sh").opaque).toBe(true);
	});

	it("marks a command that does not parse as opaque", () => {
		const parsed = parser.parse("ls &&");
		expect(parsed.malformed).toBe(true);
		expect(parsed.commands.every((c) => c.opaque)).toBe(true);
		expect(parser.parse("echo 'unterminated").commands.every((c) => c.opaque)).toBe(true);
	});
});

describe("wrappers", () => {
	const through = (source: string): [string, string[]] => {
		const c = only(source);
		return [c.text, c.wrappers];
	};

	it.each([
		["env rm -rf x", ["env"]],
		["env -i PATH=/bin rm -rf x", ["env"]],
		["env - rm -rf x", ["env"]],
		["env -u HOME rm -rf x", ["env"]],
		["nice rm -rf x", ["nice"]],
		["nice -n 5 rm -rf x", ["nice"]],
		["nice -5 rm -rf x", ["nice"]],
		["timeout 5 rm -rf x", ["timeout"]],
		["timeout -s KILL 5 rm -rf x", ["timeout"]],
		["timeout --signal=KILL -k 2 5s rm -rf x", ["timeout"]],
		["command rm -rf x", ["command"]],
		["exec rm -rf x", ["exec"]],
		["nohup rm -rf x", ["nohup"]],
		["stdbuf -oL rm -rf x", ["stdbuf"]],
		["stdbuf -o L rm -rf x", ["stdbuf"]],
		["time rm -rf x", ["time"]],
		["time -p rm -rf x", ["time"]],
		["sudo rm -rf x", ["sudo"]],
		["sudo -u root -E rm -rf x", ["sudo"]],
		["doas -u root rm -rf x", ["doas"]],
		["setsid rm -rf x", ["setsid"]],
		["ionice -c 3 rm -rf x", ["ionice"]],
		["chrt 5 rm -rf x", ["chrt"]],
		["chrt -f 1 rm -rf x", ["chrt"]],
		["nocache rm -rf x", ["nocache"]],
		["eatmydata rm -rf x", ["eatmydata"]],
		["builtin rm -rf x", ["builtin"]],
		["busybox rm -rf x", ["busybox"]],
		["env nice timeout 5 command /bin/rm --recursive --force x", ["env", "nice", "timeout", "command"]],
	])("looks through %s", (source, wrappers) => {
		expect(through(source)).toEqual(["rm -f -r x", wrappers]);
	});

	it("marks sudo and doas as privileged", () => {
		expect(only("sudo rm x").privileged).toBe(true);
		expect(only("doas rm x").privileged).toBe(true);
		expect(only("nice rm x").privileged).toBe(false);
		expect(only("sudo -i").opaque).toBe(true);
		expect(only("sudo -l")).toMatchObject({ program: "sudo", opaque: false });
	});

	it("does not look through command -v, which runs nothing", () => {
		expect(only("command -v rm")).toMatchObject({ program: "command", argv: ["-v", "rm"] });
	});

	it("looks through xargs to its program and marks arguments from input", () => {
		const { commands } = parser.parse("find . -name '*.o' | xargs -0 -n 10 rm -rf");
		expect(commands[1]).toMatchObject({ text: "rm -f -r", argsFromInput: true, wrappers: ["xargs"] });
		expect(only("xargs -I{} rm {}").program).toBe("rm");
		expect(only("xargs -I {} rm {}").program).toBe("rm");
		expect(only("xargs")).toMatchObject({ program: "echo", argsFromInput: true });
		expect(only("xargs -Z rm")).toMatchObject({ opaque: true });
		expect(only("xargs $PROG")).toMatchObject({ opaque: true });
	});

	it("parses sh -c and bash -c strings recursively", () => {
		expect(parser.parse(`bash -c "rm -rf x; ls | wc -l"`).commands.map((c) => [c.text, c.wrappers])).toEqual([
			["rm -f -r x", ["bash -c"]],
			["ls", ["bash -c"]],
			["wc -l", ["bash -c"]],
		]);
		expect(through("sh -c 'rm -rf x'")).toEqual(["rm -f -r x", ["sh -c"]]);
		expect(through("bash -lc 'rm -rf x'")).toEqual(["rm -f -r x", ["bash -c"]]);
		expect(through("sudo bash -c 'nice rm -rf x'")).toEqual(["rm -f -r x", ["sudo", "bash -c", "nice"]]);
		expect(only(`sudo bash -c 'rm -rf x'`).privileged).toBe(true);
		expect(through(`sh -c "sh -c 'rm -rf x'"`)).toEqual(["rm -f -r x", ["sh -c", "sh -c"]]);
	});

	it("marks sh -c with a computed script as opaque", () => {
		expect(parser.parse('bash -c "$SCRIPT"').commands.every((c) => c.opaque)).toBe(true);
		expect(only("sh -c")).toMatchObject({ opaque: true });
	});

	it("still reads a partly computed sh -c or eval script, expansions kept as expansions", () => {
		const { commands } = parser.parse('bash -c "rm -rf $HOME/*"');
		expect(commands.map((c) => [c.text, c.opaque, c.wrappers])).toEqual([
			["bash -c rm -rf $HOME/*", true, []],
			["rm -f -r $HOME/*", false, ["bash -c"]],
		]);
		expect(commands[1]!.args[1]).toEqual({ value: "$HOME/*", static: false, scriptText: "$HOME/*" });
		expect(texts('sh -c "echo \\"$X\\"; ls ~"').slice(1)).toEqual(["echo $X", "ls ~"]);
		expect(texts(`eval "rm -rf ${BRACED_HOME}/x"`)).toEqual([`eval rm -rf ${BRACED_HOME}/x`, `rm -f -r ${BRACED_HOME}/x`]);
		expect(texts("eval rm -rf $DIR")[1]).toBe("rm -f -r $DIR");
		expect(texts('su -c "rm -rf $D" root')[1]).toBe("rm -f -r $D");
		expect(texts('watch rm -rf "$D"')[1]).toBe("rm -f -r $D");
	});

	it("reads a foreign shell's -c script as a best effort and keeps it opaque", () => {
		const { commands } = parser.parse("fish -c 'rm -rf ~'");
		expect(commands.map((c) => [c.text, c.opaque])).toEqual([
			["fish -c 'rm -rf ~'", true],
			["rm -f -r ~", false],
		]);
	});

	it("looks through env -S, flock -c, su -c and watch", () => {
		expect(through("env -S 'rm -rf x'")).toEqual(["rm -f -r x", ["env -S"]]);
		expect(only("su -c 'rm -rf x' root")).toMatchObject({ text: "rm -f -r x", privileged: true });
		expect(only("flock /tmp/lock rm -rf x").text).toBe("rm -f -r x");
		expect(only("watch -n 1 rm -rf x").text).toBe("rm -f -r x");
		expect(only("su").opaque).toBe(true);
	});

	it("lists find -exec clauses as sub-commands", () => {
		const { commands } = parser.parse("find . -name '*.tmp' -exec rm -rf {} \\;");
		expect(commands.map((c) => c.program)).toEqual(["find", "rm"]);
		expect(commands[1]).toMatchObject({ text: "rm -f -r {}", argsFromInput: true });
	});

	it("records time -o as a write", () => {
		expect(only("time -o log.txt ls").redirects).toEqual([{ operator: ">", kind: "write", target: { value: "log.txt", static: true } }]);
	});
});

describe("code a shell reads from standard input", () => {
	it("parses a quoted heredoc fed to a shell as a script, each command on its own", () => {
		const { commands } = parser.parse("bash <<'EOF'\nrm -f a\necho $HOME > b\nEOF");
		expect(commands.map((c) => c.text)).toEqual(["rm -f a", "echo $HOME > b"]);
		expect(commands.every((c) => !c.opaque && c.wrappers.includes("bash <<"))).toBe(true);
	});

	it("keeps a shell opaque when its heredoc expands, but lists the commands it shows", () => {
		const { commands } = parser.parse("sh <<EOF\nrm -rf $DIR\nEOF");
		expect(commands[0]).toMatchObject({ program: "sh", opaque: true });
		expect(commands.slice(1).map((c) => c.program)).toEqual(["rm"]);
	});

	it("parses a here-string fed to a shell", () => {
		expect(texts('sh <<<"rm -f x"')).toEqual(["rm -f x"]);
	});

	it("keeps a script from a file or a pipe opaque", () => {
		expect(only("sh < x.sh")).toMatchObject({ opaque: true, opaqueReason: "sh runs the commands in the file x.sh" });
		expect(parser.parse("cat x.sh | sh").commands[1]).toMatchObject({ opaque: true });
	});

	it("records the heredoc's text, and the redirects written after its delimiter", () => {
		const c = only("cat <<'EOF' > out\n$x\nEOF");
		expect(c.redirects.find((r) => r.kind === "heredoc")?.body).toEqual({ value: "$x\n", static: true });
		expect(c.redirects.find((r) => r.kind === "write")?.target.value).toBe("out");
	});
});

describe("wrappers that move the program to another directory", () => {
	it("makes env -C and --chdir opaque, inner scripts included, so relative paths are not checked against the wrong directory", () => {
		for (const source of ["env -C /etc cat passwd", "env --chdir=/etc cat passwd", "env -C /tmp sh -c 'cat x'", "env -C /tmp sudo rm -rf /"]) {
			const last = parser.parse(source).commands.at(-1)!;
			expect(last.opaque, source).toBe(true);
			expect(last.opaqueReason, source).toContain("another directory");
		}
		expect(only("env -C /tmp sudo rm -rf /").text).toBe("rm -f -r /");
		expect(only("env LC_ALL=C sort f").opaque).toBe(false);
	});

	it("records the program words of the wrappers looked through", () => {
		expect(only("./env nice ls").launchers).toEqual(["./env", "nice"]);
		expect(parser.parse("/bin/bash -c 'ls'").commands[0]!.launchers).toEqual(["/bin/bash"]);
	});
});

describe("blanks bash does not split on", () => {
	it.each(["touch c\recho y", "echo\u000bx", "rm a\fb", "printf 'a\rb'"])("%j is refused: the parser would split a word bash keeps whole", (source) => {
		const parsed = parser.parse(source);
		expect(parsed.commands).toEqual([]);
		expect(parsed.malformed).toBe(true);
		expect(parsed.malformedReason).toMatch(/carriage return, vertical tab or form feed/);
	});

	it("inside a script run by bash -c, the script is opaque", () => {
		const [outer, ...rest] = parser.parse("bash -c $'touch c\\recho y'").commands;
		expect(rest).toEqual([]);
		expect(outer?.opaqueReason).toMatch(/carriage return/);
	});
});
