import { beforeAll, describe, expect, it } from "vitest";
import { plainCommands } from "./plain-command.js";
import { ShellParser } from "./shell-parser.js";

let scanning: ShellParser;
let grammar: ShellParser;
beforeAll(async () => {
	scanning = await ShellParser.create();
	grammar = await ShellParser.create({ plainScan: false });
});

/** Words chosen for the places a scan could read differently from the grammar. */
const WORDS = [
	"ls", "git", "status", "-la", "--short", "src/a.ts", "20", "-n", "NODE_ENV=test", "--grep=x", "HEAD~3", "~", "~/x", "~root",
	"*.ts", "a?b", "**", "%1", "a:b", "a,b", "+x", "@x", "=", "a=", "-", "--", ".", "..", "/", "in", "do", "then", "time",
	'"two words"', "'single q'", '"a|b && c; d"', '""', "''", 'x"y"z', "--opt='v w'", '"*.tmp"', "'#x'", "bash", "-c", "sudo",
	"env", "timeout", "5", "xargs", "rm", "-rf", "find", "-delete", "cd", "/tmp", "npm", "run", "sh", "nice", "export",
	'A="x y"', '--x="a=b"', '"-"', "'='", '"in"', '":"', "0", "-0", "1a", "a'b'=c", "'a'=b", '"a"b', "?", "*", "~+", "~-",
];
const OPERATORS = [" ", " ", " ", " ", " | ", " && ", " || ", "; ", "|", "&&", ";"];

function corpus(count: number): string[] {
	let seed = 11;
	const next = (n: number) => {
		seed = (seed * 1103515245 + 12345) % 2147483648;
		return seed % n;
	};
	const out: string[] = [];
	for (let k = 0; k < count; k++) {
		let text = WORDS[next(WORDS.length)]!;
		const length = 1 + next(7);
		for (let i = 0; i < length; i++) text += OPERATORS[next(OPERATORS.length)]! + WORDS[next(WORDS.length)]!;
		out.push(text);
	}
	return out;
}

const HAND_PICKED = [
	"git status --short src/m1",
	"cat notes/1.md | head -n 20",
	"npm run lint && git push origin feature1",
	'bash -c "git push --force origin main1"',
	'find . -name "*.tmp1" -delete',
	"git diff HEAD~2 -- src",
	"env NODE_ENV=test npm run build1",
	"sudo rm -rf /var/tmp/build1",
	"cd /tmp/x1 && rm -rf /",
	"timeout 6 npm test",
	"a | b || c && d ; e | f | g",
	'bash -c "bash -c \'ls | wc -l\'"',
];

describe("plain command lines read the same with and without the grammar", () => {
	it("hand-picked lines are all plain and parse identically", () => {
		for (const text of HAND_PICKED) {
			expect(plainCommands(text), text).toBeDefined();
			expect(scanning.parse(text), text).toEqual(grammar.parse(text));
		}
	});

	it("a generated corpus parses identically wherever the scan accepts it", () => {
		let accepted = 0;
		for (const text of corpus(4000)) {
			if (plainCommands(text) !== undefined) accepted++;
			expect(scanning.parse(text), text).toEqual(grammar.parse(text));
		}
		expect(accepted).toBeGreaterThan(500);
	});

	it.each([
		["an expansion", "echo $HOME"],
		["a substitution", 'echo "$(cat x)"'],
		["a redirect", "ls > out"],
		["a background job", "sleep 1 &"],
		["an assignment", "PATH=./bin ls"],
		["a keyword", "if true; then ls; fi"],
		["an export", "export A=1"],
		["braces", "echo {a,b}"],
		["a backslash", "echo a\\ b"],
		["a comment", "ls # x"],
		["an unclosed quote", 'echo "x'],
		["a trailing operator", "ls &&"],
		["a long pipeline before a list operator", "a | b | c && d"],
		["an empty command", "ls ;; ls"],
		["a newline", "ls\nrm -rf /"],
		["a subshell", "(ls)"],
		["a test", "[ -f x ]"],
		["history expansion", 'echo "!!"'],
		["nothing", ""],
		["a chain longer than the grammar's depth limit allows", Array.from({ length: 40 }, () => "true").join(" && ")],
	])("leaves %s to the grammar", (_what, text) => {
		expect(plainCommands(text)).toBeUndefined();
	});
});
