import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import picomatch from "picomatch";
import { afterAll, describe, expect, it } from "vitest";
import { SCAN_MAX_DEPTH, scanProtected } from "./protected-scan.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "warden-scan-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A registry of a few `**` rules, as the kernel's covers(): the path itself, or a directory holding protected paths. */
const rules = ["**/.envrc", "**/.warden/**", "**/.git", "**/.git/hooks/**", "**/.git/config", "**/.git/modules/**/hooks/**", "**/.git/objects/info/alternates"].map((p) =>
	picomatch(p, { dot: true }),
);
const covers = (rel: string) => rules.some((t) => t(rel) || t(`${rel}/x`));

function tree(name: string, files: string[]): string {
	const ws = join(base, name);
	for (const f of files) {
		if (f.endsWith("/")) {
			mkdirSync(join(ws, f), { recursive: true });
			continue;
		}
		mkdirSync(dirname(join(ws, f)), { recursive: true });
		writeFileSync(join(ws, f), "x");
	}
	return ws;
}

describe("scanProtected", () => {
	it("finds protected paths at every depth, a whole protected directory as one, and .git as a directory to keep in place", () => {
		const ws = tree("deep", [
			"a/b/c/d/e/.envrc",
			"sub/.warden/config.yaml",
			".git/hooks/pre-commit",
			".git/config",
			".git/objects/info/alternates",
			".git/objects/ab/cdef",
			"src/index.ts",
		]);
		const { found, complete } = scanProtected(ws, covers);
		expect(complete).toBe(true);
		expect(found.map((f) => `${f.rel} ${f.kind}${f.whole ? " whole" : ""}`).sort()).toEqual([
			".git dir",
			".git/config file",
			".git/hooks dir whole",
			".git/objects/info/alternates file",
			"a/b/c/d/e/.envrc file",
			"sub/.warden dir whole",
		]);
	});

	it("passes over dependency folders, but nothing by that name inside a git dir (a submodule may be called vendor)", () => {
		const ws = tree("skips", ["node_modules/x/.envrc", "vendor/y/.envrc", ".git/modules/vendor/HEAD", ".git/modules/vendor/hooks/post-checkout", ".git/refs/heads/.envrc"]);
		const rels = scanProtected(ws, covers).found.map((f) => f.rel);
		expect(rels).toContain(".git/modules/vendor/hooks");
		expect(rels).not.toContain("node_modules/x/.envrc");
		expect(rels).not.toContain("vendor/y/.envrc");
		// Git's bulk storage holds nothing git reads for config or programs.
		expect(rels).not.toContain(".git/refs/heads/.envrc");
	});

	it("reports a link by its own name and does not walk through it", () => {
		const ws = tree("links", ["real/.envrc", "other/"]);
		symlinkSync(join(ws, "real/.envrc"), join(ws, "other/.envrc"));
		symlinkSync(join(ws, "real"), join(ws, "via"));
		const found = scanProtected(ws, covers).found;
		expect(found).toContainEqual({ rel: "other/.envrc", kind: "link", whole: false });
		expect(found.map((f) => f.rel)).not.toContain("via/.envrc");
	});

	it("says so when it stopped at its depth", () => {
		const deep = `${Array.from({ length: SCAN_MAX_DEPTH + 1 }, (_, i) => `d${i}`).join("/")}/.envrc`;
		const ws = tree("too-deep", [deep]);
		const scan = scanProtected(ws, covers);
		expect(scan.complete).toBe(false);
		expect(scan.found).toEqual([]);
	});
});
