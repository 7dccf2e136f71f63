/**
 * The parser against git itself: random config texts from the format's tricky pieces (quotes,
 * escapes, comments, continuations, odd whitespace, broken headers), each read by both. Where git
 * refuses a text the parser refuses it; where git reads one, both read the same keys and values.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { entryKey, parseGitConfig } from "./git-config-parse.js";

const dir = mkdtempSync(join(tmpdir(), "warden-gitcfg-fuzz-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEADERS = ["[core]", "[core] x = 1", "[alias]st=s", "[a \"b\\\\c\\\\d\"]", '[filter "Lfs"]', "[Branch.Main]", '[a "x\\"y"]', "[ core]", "[core", '[a "b]', "[a.b.c]", "[include]"];
const NAMES = ["hooksPath", "path", "x-y", "B", "9x", "a_b"];
const VALUES = [" .githooks", '"a # b"', "a ; c", "one\\\n two", '" lead"', "tail  ", "\\t\\n\\\\", "\\q", '"open', "", "x\\\r\ny", "#c"];
const SEPS = [" = ", "=", "\t=\t", " ", ""];

/** A small deterministic generator, so a failure names a reproducible seed. */
function rng(seed: number) {
	let s = seed >>> 0;
	return (n: number) => {
		s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
		return s % n;
	};
}

function text(seed: number): string {
	const r = rng(seed);
	const pick = <T>(xs: readonly T[]) => xs[r(xs.length)]!;
	const lines: string[] = [];
	for (let i = 0, n = 1 + r(6); i < n; i++) {
		const k = r(10);
		if (k < 2) lines.push(pick(HEADERS));
		else if (k < 3) lines.push(pick(["# comment", "; other", "", "   "]));
		else lines.push(`\t${pick(NAMES)}${pick(SEPS)}${pick(VALUES)}`);
	}
	return `${lines.join("\n")}\n`;
}

function gitReads(file: string): string[] | undefined {
	try {
		const out = execFileSync("git", ["config", "--file", file, "--list", "-z"], { env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: "1", HOME: dir }, stdio: ["ignore", "pipe", "ignore"] });
		return out.toString("utf8").split("\0").filter((x) => x !== "");
	} catch {
		return undefined;
	}
}

describe("parseGitConfig against git", () => {
	it("refuses what git refuses and reads what git reads, over random texts", () => {
		for (let seed = 1; seed <= Number(process.env.GITCFG_FUZZ_SEEDS ?? 200); seed++) {
			const src = text(seed);
			const file = join(dir, `c${seed}`);
			writeFileSync(file, src);
			const git = gitReads(file);
			let mine: string[] | undefined;
			try {
				mine = parseGitConfig(src).map((e) => (e.value === undefined ? entryKey(e) : `${entryKey(e)}\n${e.value}`));
			} catch {
				mine = undefined;
			}
			expect(mine, `seed ${seed}: ${JSON.stringify(src)}`).toEqual(git);
		}
	});
});
