import { describe, expect, it } from "vitest";
import { braced } from "../test-support/policy-fixtures.js";
import { expansionLength, expansionsAsGlob, rootedAtExpansion } from "./expansions.js";

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
