import { beforeAll, describe, expect, it } from "vitest";
import { ShellParser } from "./shell-parser.js";
import { writeTargets } from "./write-targets.js";

let parser: ShellParser;
beforeAll(async () => {
	parser = await ShellParser.create();
});

/** Every sub-command's targets as `kind path via`. */
function targets(command: string): string[] {
	return parser.parse(command).commands.flatMap((c) => writeTargets(c).map((t) => `${t.kind} ${t.path.value} ${t.via}`));
}

describe("what a command's text writes", () => {
	it("redirect targets: truncating, appending, both streams", () => {
		expect(targets("cat .env > out.txt")).toEqual(["write out.txt >"]);
		expect(targets("echo x >> log.txt")).toEqual(["append log.txt >>"]);
		expect(targets("make &> build.log")).toEqual(["write build.log &>"]);
		expect(targets("make 2> err.txt")).toEqual(["write err.txt >"]);
	});

	it("tee's operands, appending with -a", () => {
		expect(targets("cat .env | tee a.txt b.txt")).toEqual(["write a.txt tee", "write b.txt tee"]);
		expect(targets("cat x | tee -a log.txt")).toEqual(["append log.txt tee"]);
		expect(targets("cat x | tee -- -odd")).toEqual(["write -odd tee"]);
	});

	it("devices, descriptors and reads are not written files", () => {
		expect(targets("cat * 2>/dev/null")).toEqual([]);
		expect(targets("cmd 2>&1 | tee /dev/stderr")).toEqual([]);
		expect(targets("wc -l < in.txt")).toEqual([]);
	});
});
