import { beforeAll, describe, expect, it } from "vitest";
import { notReadOnlyBecause } from "./command-classes.js";
import { UNSAFE_FIND_PRIMARIES, UNSAFE_FLAGS, unsafeFlag } from "./reader-flags.js";
import { ShellParser } from "./shell/shell-parser.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

const why = (source: string): string | undefined => notReadOnlyBecause(parser.parse(source).commands[0]!);

describe("UNSAFE_FLAGS", () => {
	it.each(UNSAFE_FLAGS.map((row) => [row.program, row.flag, row.example] as const))("%s %s: %s is not read-only, for that option", (_program, flag, example) => {
		expect(why(example)).toContain(flag);
	});

	it.each(UNSAFE_FIND_PRIMARIES.map((p) => [p.primary, `find . -name '*.md' ${p.primary} x`] as const))("find %s: %s is not read-only", (primary, command) => {
		expect(why(command)).toContain(primary);
	});

	it("matches a long option written as an unambiguous prefix, but not a real option it begins", () => {
		expect(unsafeFlag("sort", ["--compress=gzip"])?.flag).toBe("--compress-program");
		expect(unsafeFlag("git", ["--out=x"], "log")?.flag).toBe("--output");
		expect(unsafeFlag("git", ["--text"], "diff")).toBeUndefined();
		expect(unsafeFlag("git", ["--no-ext-diff"], "diff")).toBeUndefined();
	});

	it("reads tar's old bundled options as the dashed ones", () => {
		expect(why("tar xvf a.tar")).toContain("-x");
		expect(why("tar tvf host:a.tar")).toContain("remote host");
		expect(why("tar tf a.tar --to-command=./x")).toContain("--to-command");
		expect(why("tar cf a.tar notes.md")).toContain("-c");
	});

	it("scopes git's options to where they mean what the row says", () => {
		expect(why("git log -p -1")).toBeUndefined();
		expect(why("git -p log")).toContain("-p");
		expect(why("git diff -Oorderfile")).toBeUndefined();
		expect(why("git grep -O needle")).toContain("-O");
	});

	it("keeps the same readers read-only without the options", () => {
		for (const command of ["rg pattern", "rg --context 1 --heading foo", "sort notes.md", "sort -k 2 -t , notes.md", "tree -L 2", "base64 notes.md", "base64 -d notes.b64", "date -d yesterday", "printf '%s\\n' a", "file notes.md", "tar -tf a.tar", "tar -tvzf a.tar.gz", "tar tvf a.tar", "tar --list --file=a.tar", "git log -- --output=log.out", "git diff --text"]) {
			expect(why(command), command).toBeUndefined();
		}
	});
});
