import { beforeAll, describe, expect, it } from "vitest";
import { isDestructiveCommand, isReadOnlyCommand } from "./command-classes.js";
import { ShellParser } from "./shell/shell-parser.js";
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
		"git -C sub status",
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
