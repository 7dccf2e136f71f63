import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMAND_MODULES, modulesFor } from "./command-registry.js";
import { buildProgram } from "./main.js";

const names = (modules: readonly { names: readonly string[] }[]) => modules.flatMap((m) => m.names);

describe("the command registry", () => {
	it.each(COMMAND_MODULES.map((m) => [m.names.join(", "), m] as const))("the module for %s declares exactly those commands", async (_names, module) => {
		const program = new Command();
		(await module.load())(program, () => {});
		expect(program.commands.map((c) => c.name())).toEqual(module.names);
	});

	it("lists every command of the whole program, in the order help shows them", async () => {
		const program = await buildProgram(() => {});
		expect(program.commands.map((c) => c.name())).toEqual(names(COMMAND_MODULES));
	});

	it.each([
		[["audit", "verify", "--json"], ["audit", "sessions"]],
		[["sessions", "list"], ["audit", "sessions"]],
		[["eval", "bench", "--help"], ["eval"]],
		[["run", "--version"], ["run"]],
		[[], ["chat"]],
		[["--version"], []],
		[["-V"], []],
	])("warden %j declares only %j", (argv, declared) => {
		expect(names(modulesFor(argv))).toEqual(declared);
	});

	it.each([[["--help"]], [["-h"]], [["help", "audit"]], [["aduit", "verify"]], [["--plain"]], [["--version", "run"]], [["--state-dir", "run"]]])(
		"warden %j declares every command: help lists them, and a misspelled name or a leading option is commander's to judge",
		(argv) => {
			expect(modulesFor(argv)).toBe(COMMAND_MODULES);
		},
	);
});
