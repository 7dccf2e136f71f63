import { describe, expect, it } from "vitest";
import { BRACED_HOME } from "./test-support/policy-fixtures.js";
import { canonicalPath, expandHome } from "./workspace-path.js";

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
