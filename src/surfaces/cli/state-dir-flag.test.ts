/**
 * Every command that opens Warden's state takes `--state-dir` (default $WARDEN_HOME), as the README
 * promises: the whole command tree is walked, so a new command without the flag fails here. The
 * few that never open the user's state are named with the reason.
 */
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "./main.js";

/** Commands that keep their state in temporary directories of their own, never the user's. */
const NO_STATE: Record<string, string> = {
	"eval safety": "every task runs in a fresh temporary state dir, so a run cannot touch the user's",
	"eval bench": "every measurement makes its own temporary workspace and state dir (--dir chooses where)",
	"skills list": "reads only skill folders and the user config; it never opens Warden's state",
};

/** Commands that run: leaves, and groups that take arguments of their own (`replay <file>`). */
function runnable(command: Command, path: string[] = []): { path: string; command: Command }[] {
	return command.commands.flatMap((sub) => {
		const here = [...path, sub.name()];
		const self = sub.commands.length === 0 || sub.registeredArguments.length > 0 ? [{ path: here.join(" "), command: sub }] : [];
		return [...self, ...runnable(sub, here)];
	});
}

const commands = runnable(await buildProgram(() => {}));

describe("--state-dir on every command", () => {
	it("finds the whole tree, the exempt commands included", () => {
		const paths = commands.map((c) => c.path);
		expect(paths).toEqual(expect.arrayContaining(["run", "replay", "replay export", "explain", "audit verify", ...Object.keys(NO_STATE)]));
		for (const exempt of Object.keys(NO_STATE)) expect(paths, `${exempt} is exempt but no longer exists`).toContain(exempt);
	});

	it.each(commands.filter((c) => NO_STATE[c.path] === undefined).map((c) => [c.path, c.command] as const))("warden %s takes --state-dir <dir>, defaulting to $WARDEN_HOME", (_path, command) => {
		const option = command.options.find((o) => o.long === "--state-dir");
		expect(option, "no --state-dir option").toBeDefined();
		expect(option!.required, "--state-dir must take a directory").toBe(true);
		expect(option!.description).toContain("$WARDEN_HOME");
	});
});
