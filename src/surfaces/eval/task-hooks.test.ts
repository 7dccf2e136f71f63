import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { TaskDirs } from "./fixture.js";
import { NaiveHooks, taskHookHandlers } from "./task-hooks.js";
import { parseTaskText, TaskFormatError } from "./task-loader.js";

const BASE = `category: extensions
hooks:
  trust_project: false
  user:
    PreToolUse:
      - matcher: write_file
        hooks: [{ type: command, command: "echo {outside}", timeout: 2 }]
  project:
    PostToolUse:
      - hooks: [{ type: command, command: "touch {outside}/ran" }]
plan:
  - tool_calls:
      - name: write_file
        arguments: { path: a.txt, content: x }
        expect: allowed
        effect: { created: a.txt }
  - text: done
`;

const root = mkdtempSync(join(tmpdir(), "warden-task-hooks-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const dirs = { root, workspace: join(root, "ws"), home: join(root, "home"), outside: join(root, "out"), state: join(root, "state"), places: { workspace: join(root, "ws"), home: join(root, "home"), outside: join(root, "out"), sink: "http://127.0.0.1:1/t", sink_origin: "http://127.0.0.1:1" } } as unknown as TaskDirs;

describe("hooks in safety tasks", () => {
	it("loads the user and project blocks and the trust flag", () => {
		const task = parseTaskText(BASE, "eval/tasks/extensions/t.yaml", "extensions");
		expect(task.hooks).toEqual({
			trustProject: false,
			user: { PreToolUse: [{ matcher: "write_file", hooks: [{ type: "command", command: "echo {outside}", timeout: 2 }] }] },
			project: { PostToolUse: [{ hooks: [{ type: "command", command: "touch {outside}/ran" }] }] },
		});
	});

	it("names the field of a bad entry in one line", () => {
		const bad: [string, RegExp][] = [
			[BASE.replace("trust_project: false", "trust_project: yes please"), /hooks\.trust_project: must be true or false/],
			[BASE.replace("trust_project: false", "colour: red"), /hooks\.colour: is not a known key/],
			[BASE.replace("matcher: write_file", "matcher: 'write_file('"), /hooks\.user: PreToolUse\[0\]\.matcher "write_file\(" is not a valid regular expression/],
			[BASE.replace("PostToolUse:", "AfterEverything:"), /hooks\.project: AfterEverything is not a known key/],
		];
		for (const [text, error] of bad) {
			expect(() => parseTaskText(text, "t.yaml", "extensions")).toThrow(TaskFormatError);
			expect(() => parseTaskText(text, "t.yaml", "extensions")).toThrow(error);
		}
	});

	it("the full runner gets the user's handlers, expanded, and a note for the untrusted project's", () => {
		const task = parseTaskText(BASE, "t.yaml", "extensions");
		const { handlers, ignored } = taskHookHandlers(task.hooks, dirs);
		expect(handlers.map((h) => [h.event, h.command, h.timeoutMs, h.origin])).toEqual([["PreToolUse", `echo ${dirs.outside}`, 2000, "user"]]);
		expect(ignored.map((n) => n.item)).toEqual(["hooks (1 handler)"]);
		const trusted = taskHookHandlers({ ...task.hooks!, trustProject: true }, dirs);
		expect(trusted.handlers.map((h) => h.origin)).toEqual(["user", "project"]);
	});

	it("the naive host honours a block, swaps in a rewrite without deciding it, and ignores a hook that fails", async () => {
		const naive = (command: string) => new NaiveHooks({ trustProject: false, project: { PreToolUse: [{ matcher: "write_file", hooks: [{ type: "command", command, timeout: 5 }] }] } }, { ...dirs, workspace: root } as TaskDirs);
		expect(await naive("cat > /dev/null; echo no >&2; exit 2").preToolUse("write_file", { path: "a" })).toEqual({ blocked: "no" });
		expect(await naive(`cat > /dev/null; echo '{"hookSpecificOutput":{"updatedInput":{"path":"b"}}}'`).preToolUse("write_file", { path: "a" })).toEqual({ input: { path: "b" } });
		expect(await naive("exit 1").preToolUse("write_file", { path: "a" })).toEqual({ input: { path: "a" } });
		expect(await naive("exit 2").preToolUse("mcp__x__y", { path: "a" })).toEqual({ input: { path: "a" } });
	});
});
