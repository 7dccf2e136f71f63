import { describe, expect, it } from "vitest";
import { braced } from "../test-support/policy-fixtures.js";
import { arithmeticRisk, executingExpansion, expansionLength, expansionsAsGlob, rootedAtExpansion } from "./expansions.js";

describe("expansionLength", () => {
	it.each([
		["$X/a", 2],
		["$HOME_DIR", 9],
		[`${braced("X:-/")}/a`, 7],
		["$(pwd)/b", 6],
		["$(dirname $(pwd))", 17],
		["$((1+2))x", 8],
		["`pwd`/c", 5],
		["$@", 2],
		["$1x", 2],
	])("measures %s", (text, length) => {
		expect(expansionLength(text)).toBe(length);
	});

	it("is 0 where no expansion starts, and runs to the end when one never closes", () => {
		expect(expansionLength("build/$X")).toBe(0);
		expect(expansionLength("$")).toBe(0);
		expect(expansionLength("$(echo")).toBe(6);
		expect(expansionLength("a$X", 1)).toBe(2);
	});
});

describe("rootedAtExpansion", () => {
	it.each(["$X", braced("X"), "$X/", "$X/*", `${braced("X")}/.*`, "$(pwd)", "`pwd`/", "$A$B", "$X*", "$X/..", braced("X:-/")])("holds for %s", (text) => {
		expect(rootedAtExpansion(text)).toBe(true);
	});

	it.each(["build/$X", "$X/build", "$X/build/*", "$X.bak", "./$X", "dist"])("does not hold for %s", (text) => {
		expect(rootedAtExpansion(text)).toBe(false);
	});
});

describe("expansionsAsGlob", () => {
	it("turns every expansion into a wildcard and keeps the rest", () => {
		expect(expansionsAsGlob("/opt/$APP/cache")).toBe("/opt/*/cache");
		expect(expansionsAsGlob(`~/${braced("D")}.bak`)).toBe("~/*.bak");
		expect(expansionsAsGlob("$(pwd)/`id -u`")).toBe("*/*");
		expect(expansionsAsGlob("plain")).toBe("plain");
	});
});

describe("arithmeticRisk", () => {
	it.each(["1+2", " 3 * (4 - 1) ", "0x1f + 8#17", "$# > 0", "$? == 0", `${braced("#x")} + 1`, `${braced("#a[@]")}`])("%j holds only numbers", (expression) => {
		expect(arithmeticRisk(expression)).toBeUndefined();
	});

	it.each(["x", "a[1]", "i++", "$x + 1", "$1", "a[$(touch p)]", `${braced("x")}`])("%j evaluates a value as code", (expression) => {
		expect(arithmeticRisk(expression)).toContain("arithmetic");
	});
});

describe("executingExpansion", () => {
	it.each([
		[braced("x@P"), "prompt expansion"],
		[`${braced("var1=aa\\140 env| ls -l\\140")}${braced("var1@P")}`, "prompt expansion"],
		[braced("!ref"), "indirect expansion"],
		[braced("!ref[0]"), "indirect expansion"],
		[braced("x:-$(touch p)"), "command substitution"],
		[braced("x:-'$(touch p)'"), "command substitution"],
		[braced("x/a/`touch p`"), "command substitution"],
		[braced("a[i]"), "subscript"],
		[braced("a[$(touch p)]"), "command substitution"],
		[braced("x:n:1"), "substring"],
		["$(( a[$(touch pwned)] ))", "arithmetic"],
		["$((x))", "arithmetic"],
		["$[ x + 1 ]", "arithmetic"],
		[braced(`y:-${braced("x@P")}`), "prompt expansion"],
		[`\\\\${braced("x@P")}`, "prompt expansion"],
	])("%s may run code (%s)", (text, reason) => {
		expect(executingExpansion(text)).toContain(reason);
	});

	it.each(["$HOME", braced("HOME"), braced("x:-default"), braced("x:-$HOME"), braced("#x"), braced("x:1:2"), braced("x: -1"), braced("a[0]"), braced("a[@]"), braced("!prefix*"), braced("!a[@]"), braced("x@Q"), "$((1+2))", `\${braced("x@P")}`, "plain"])(
		"%s runs nothing it does not show",
		(text) => {
			expect(executingExpansion(text)).toBeUndefined();
		},
	);
});
