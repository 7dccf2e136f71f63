import { describe, expect, it } from "vitest";
import { normalizeArgs, normalizedText } from "./flag-normalization.js";
import type { ShellWord } from "./shell-types.js";

const words = (...values: string[]): ShellWord[] => values.map((value) => ({ value, static: true }));
const text = (program: string, ...args: string[]): string => normalizedText(program, normalizeArgs(program, words(...args)));

describe("normalizeArgs", () => {
	it.each([
		[["-rf", "x"]],
		[["-fr", "x"]],
		[["-r", "-f", "x"]],
		[["-R", "-f", "x"]],
		[["--recursive", "--force", "x"]],
		[["--force", "-r", "x"]],
		[["x", "-rf"]],
		[["-r", "-r", "-f", "x"]],
	])("rm %j is rm -f -r x", (args) => {
		expect(text("rm", ...args)).toBe("rm -f -r x");
	});

	it("maps recursive flags of cp, mv, chmod and chown", () => {
		expect(text("cp", "-r", "a", "b")).toBe(text("cp", "--recursive", "a", "b"));
		expect(text("cp", "-R", "a", "b")).toBe("cp -R a b");
		expect(text("chmod", "--recursive", "755", "d")).toBe("chmod -R 755 d");
		expect(text("chown", "-R", "u", "d")).toBe(text("chown", "--recursive", "u", "d"));
		expect(text("mv", "--force", "a", "b")).toBe("mv -f a b");
	});

	it("normalizes git push and git clean flags", () => {
		expect(text("git", "push", "--force", "origin", "main")).toBe("git -f push origin main");
		expect(text("git", "push", "-f", "origin", "main")).toBe("git -f push origin main");
		expect(text("git", "clean", "-fdx")).toBe(text("git", "clean", "-x", "--force", "-d"));
		expect(text("git", "-C", "repo", "status")).toBe("git -C repo status");
		expect(text("git", "commit", "-am", "fix -rf bug")).toBe("git -a -m 'fix -rf bug' commit");
	});

	it("keeps values of value-taking options attached to them", () => {
		expect(normalizeArgs("head", words("-n5", "f")).flags).toEqual(["-n 5"]);
		expect(normalizeArgs("head", words("-n", "5", "f")).flags).toEqual(["-n 5"]);
		expect(normalizeArgs("grep", words("-e", "-x", "f")).operands.map((o) => o.value)).toEqual(["f"]);
	});

	it("treats words after -- and dynamic words as operands", () => {
		expect(normalizeArgs("rm", words("--", "-rf")).operands.map((o) => o.value)).toEqual(["-rf"]);
		expect(text("rm", "--", "-rf")).toBe("rm -- -rf");
		const dynamic = normalizeArgs("rm", [{ value: "$FLAGS", static: false }]);
		expect(dynamic).toEqual({ flags: [], operands: [{ value: "$FLAGS", static: false }] });
	});

	it("leaves programs with single-dash long options as written", () => {
		expect(text("find", ".", "-name", "*.ts", "-delete")).toBe("find . -name *.ts -delete");
		expect(text("dd", "if=/dev/zero", "of=x")).toBe("dd if=/dev/zero of=x");
	});

	it("keeps each flag once and sorts them, however many a command has", () => {
		const many = Array.from({ length: 40 }, (_, i) => `--opt${i % 25}`);
		const flags = normalizeArgs("tool", words(...many, "-ba", "-ab", "x")).flags;
		expect(flags).toEqual([...new Set([...many, "-a", "-b"])].sort());
		expect(normalizeArgs("rm", words("-r", "-f", "-rf", "--force", "--recursive")).flags).toEqual(["-f", "-r"]);
	});

	it("quotes words that need it for display", () => {
		expect(text("echo", "a b", "it's")).toBe(`echo 'a b' 'it'\\''s'`);
	});
});
