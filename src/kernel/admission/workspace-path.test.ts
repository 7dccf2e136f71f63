import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import { BRACED_HOME } from "./test-support/policy-fixtures.js";
import { absolutePath, canonicalPath, expandHome } from "./workspace-path.js";

describe("expandHome", () => {
	it("expands ~, ~user and $HOME (braced or not) at the start only", () => {
		expect(expandHome("~", "/home/u")).toBe("/home/u");
		expect(expandHome("~/x", "/home/u")).toBe("/home/u/x");
		expect(expandHome("$HOME/x", "/home/u")).toBe("/home/u/x");
		expect(expandHome(BRACED_HOME, "/home/u")).toBe("/home/u");
		expect(expandHome("~root/.ssh", "/home/u")).toBe("/root/.ssh");
		expect(expandHome("~bob", "/home/u")).toBe("/home/bob");
		expect(expandHome("a/~/b", "/home/u")).toBe("a/~/b");
		expect(expandHome("$HOMEDIR", "/home/u")).toBe("$HOMEDIR");
	});
});

describe("canonicalPath", () => {
	it("makes paths inside the workspace relative", () => {
		expect(canonicalPath("src/a.ts", "/ws", "/h")).toEqual({ absolute: "/ws/src/a.ts", relative: "src/a.ts", inside: true });
		expect(canonicalPath("/ws/src/a.ts", "/ws", "/h").relative).toBe("src/a.ts");
		expect(canonicalPath("./a/../b/", "/ws", "/h").relative).toBe("b");
		expect(canonicalPath(".", "/ws/", "/h")).toEqual({ absolute: "/ws", relative: ".", inside: true });
	});

	it("keeps paths outside the workspace absolute", () => {
		expect(canonicalPath("../other/x", "/ws", "/h")).toEqual({ absolute: "/other/x", inside: false });
		expect(canonicalPath("/wsx/a", "/ws", "/h").inside).toBe(false);
		expect(canonicalPath("~/a", "/ws", "/h")).toEqual({ absolute: "/h/a", inside: false });
	});
});

describe("canonicalPath agrees with posix.resolve on every spelling", () => {
	// The former formula, kept here as the reference the shortcut in canonicalPath must match.
	const reference = (value: string, workspace: string, home: string) => {
		const trim = (p: string) => (p.length > 1 ? p.replace(/\/+$/, "") : p);
		const absolute = trim(posix.resolve(workspace, expandHome(value, home)));
		const root = trim(posix.normalize(workspace));
		if (absolute === root) return { absolute, relative: ".", inside: true };
		const prefix = root === "/" ? "/" : `${root}/`;
		if (absolute.startsWith(prefix)) return { absolute, relative: absolute.slice(prefix.length), inside: true };
		return { absolute, inside: false };
	};
	const ALPHABET = ["a", "b", ".", "/", "~", "$HOME", "..", "//", "x.y"];
	const WORKSPACES = ["/ws", "/ws/", "/", "/a/./b", "/a//b/", "/a/../ws", "/ws/..."];
	it("for every workspace and a fixed sample of generated values", () => {
		let seed = 7;
		const next = () => {
			seed = (seed * 1103515245 + 12345) % 2147483648;
			return seed;
		};
		let checked = 0;
		for (const workspace of WORKSPACES) {
			for (let n = 0; n < 400; n++) {
				let value = "";
				const length = next() % 7;
				for (let i = 0; i < length; i++) value += ALPHABET[next() % ALPHABET.length];
				const expected = reference(value, workspace, "/h");
				expect(canonicalPath(value, workspace, "/h"), `${JSON.stringify(value)} in ${workspace}`).toEqual(expected);
				expect(absolutePath(value, workspace, "/h"), `${JSON.stringify(value)} from ${workspace}`).toBe(expected.absolute);
				checked++;
			}
		}
		expect(checked).toBe(WORKSPACES.length * 400);
	});
});
