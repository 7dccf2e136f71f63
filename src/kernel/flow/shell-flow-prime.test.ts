/**
 * A command's output is drawn live only when the redactor already knows every secret value the
 * command may print: primeRedactor teaches it the values before the command runs, and says no where
 * they cannot be known beforehand.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ShellParser } from "../admission/shell/shell-parser.js";
import { taskCeiling } from "../authority/task-ceiling.js";
import { createTempWorkspace, type TempWorkspace } from "../test-support/temp-workspace.js";
import { createRedactor } from "./redaction.js";
import type { Redactor } from "./redaction-types.js";
import { SessionFlow } from "./session-flow.js";
import { admitShellFlow } from "./shell-flow.js";
import { createSinkRegistry, defaultSinkRules } from "./sink-registry.js";

const KEY = "otter-prime-4k9w2q7z";
const OLD_KEY = "heron-prime-8x3m1v5c";
let parser: ShellParser;
let ws: TempWorkspace | undefined;
let root: string;
beforeAll(async () => {
	parser = await ShellParser.create();
});
afterEach(() => {
	ws?.cleanup();
	ws = undefined;
});

function workspace(files: Record<string, string>): TempWorkspace {
	ws = createTempWorkspace();
	ws.put(files);
	root = ws.dir;
	return ws;
}

function git(args: string[]): void {
	execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], { cwd: root, stdio: "ignore", env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } });
}

async function primed(command: string): Promise<{ live: boolean; redactor: Redactor }> {
	const redactor = createRedactor({ env: {} });
	const flow = new SessionFlow({ session: "s1", workspace: root, registry: createSinkRegistry(defaultSinkRules()), ceiling: taskCeiling({}), redactor, record: async () => {} });
	const admitted = await admitShellFlow({ flow: flow.forCall("c1", new AbortController().signal), parseShell: (c) => parser.parse(c), callId: "c1", root }, command);
	return { live: await admitted.primeRedactor(), redactor };
}

describe("primeRedactor", () => {
	it("a command that reads no secret is live and teaches nothing", async () => {
		workspace({ ".env": `LAUNCH_CODE=${KEY}\n`, "README.md": "# r\n" });
		const { live, redactor } = await primed("cat README.md");
		expect(live).toBe(true);
		expect(redactor.redactText(KEY)).toBe(KEY);
	});

	it.each(["cat .env", "grep -r LAUNCH .", "env nice cat ./.env", "head -n 3 ./.*"])("%s: the secret files' values are known before it runs", async (command) => {
		workspace({ ".env": `LAUNCH_CODE=${KEY}\n`, "README.md": "# r\n" });
		const { live, redactor } = await primed(command);
		expect(live).toBe(true);
		expect(redactor.redactText(`the code is ${KEY}`)).not.toContain(KEY);
	});

	it("a revision read: the blob's value (an old one, gone from the working tree) is known before it runs", async () => {
		workspace({ ".env": `LAUNCH_CODE=${OLD_KEY}\n`, "README.md": "# r\n" });
		git(["init", "-q"]);
		git(["add", "-A"]);
		git(["commit", "-qm", "one"]);
		writeFileSync(path.join(root, ".env"), `LAUNCH_CODE=${KEY}\n`);
		const { live, redactor } = await primed("git show HEAD:.env");
		expect(live).toBe(true);
		expect(redactor.redactText(OLD_KEY)).not.toContain(OLD_KEY);
	});

	it("a secret file outside the workspace cannot be known beforehand: not live", async () => {
		const { outside } = workspace({ "README.md": "# r\n" });
		writeFileSync(path.join(outside, ".env"), `LAUNCH_CODE=${KEY}\n`);
		const { live } = await primed(`cat ${outside}/.env`);
		expect(live).toBe(false);
	});
});
