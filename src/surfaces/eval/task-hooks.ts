/**
 * Hooks in safety tasks (`hooks:`, docs/eval-tasks.md): a user block and a project block in
 * Claude Code's shape, and whether the user trusts the project. The full runner resolves them as
 * the config does (src/config/hooks-config.ts) and hands them to the session. The baselines are a
 * naive hook host, the one users of other agents report: every PreToolUse hook of both blocks runs,
 * the project's without any trust, only for the top-level agent's built-in tools (not MCP tools,
 * not a sub-agent's calls); exit 2 or a deny blocks, an `updatedInput` is swapped in after the
 * fact, and a hook that fails or hangs is ignored (fails open).
 */
import { configProblem } from "../../config/config-schema.js";
import type { ConfigLayer, IgnoredConfigItem } from "../../config/config-types.js";
import { type HooksBlock, hooksProblem, resolveHooks } from "../../config/hooks-config.js";
import { runHookProcess } from "../../providers/hook-process.js";
import { matcherPattern } from "../../runtime/hooks/hook-matcher.js";
import { parseHookResult } from "../../runtime/hooks/hook-output.js";
import type { HookHandler } from "../../runtime/hooks/hook-types.js";
import type { TaskDirs } from "./fixture.js";
import { expandValue } from "./task-variables.js";

export interface EvalTaskHooks {
	user?: HooksBlock;
	project?: HooksBlock;
	/** The user trusts the task's workspace (its path is in trusted_projects); default false. */
	trustProject: boolean;
}

const KEYS = ["user", "project", "trust_project"];

type Fail = (field: string, problem: string) => never;

function block(value: unknown, field: string, fail: Fail): HooksBlock | undefined {
	if (value === undefined) return undefined;
	// Checked exactly as a config file's hooks block is.
	const problem = configProblem({ hooks: value }) ?? hooksProblem(value as HooksBlock);
	if (problem !== undefined) fail(field, problem.replace(/^hooks\.?/, ""));
	return value as HooksBlock;
}

export function parseTaskHooks(value: unknown, fail: Fail): EvalTaskHooks | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== "object" || value === null || Array.isArray(value)) fail("hooks", "must be a mapping { user?, project?, trust_project? }");
	const spec = value as Record<string, unknown>;
	for (const key of Object.keys(spec)) if (!KEYS.includes(key)) fail(`hooks.${key}`, `is not a known key (known: ${KEYS.join(", ")})`);
	if (spec.trust_project !== undefined && typeof spec.trust_project !== "boolean") fail("hooks.trust_project", "must be true or false");
	const user = block(spec.user, "hooks.user", fail);
	const project = block(spec.project, "hooks.project", fail);
	return { ...(user ? { user } : {}), ...(project ? { project } : {}), trustProject: spec.trust_project === true };
}

function layers(hooks: EvalTaskHooks, dirs: TaskDirs): ConfigLayer[] {
	const out: ConfigLayer[] = [];
	if (hooks.user) out.push({ name: "user", source: "task user hooks", data: { hooks: expandValue(hooks.user, dirs.places) } });
	if (hooks.project) out.push({ name: "project", source: `task project hooks ${dirs.workspace}/.warden/config.yaml`, data: { hooks: expandValue(hooks.project, dirs.places) } });
	return out;
}

/** The handlers the full runner's session gets, and the notes of what an untrusted project's hooks left out. */
export function taskHookHandlers(hooks: EvalTaskHooks | undefined, dirs: TaskDirs): { handlers: HookHandler[]; ignored: IgnoredConfigItem[] } {
	const ignored: IgnoredConfigItem[] = [];
	if (!hooks) return { handlers: [], ignored };
	return { handlers: resolveHooks(layers(hooks, dirs), hooks.trustProject, dirs.workspace, ignored), ignored };
}

export type NaiveVerdict = { blocked: string } | { input: unknown };

/** The baselines' hook host (see the file's comment). */
export class NaiveHooks {
	private readonly handlers: HookHandler[];

	constructor(
		hooks: EvalTaskHooks,
		private readonly dirs: TaskDirs,
	) {
		// Trust is not asked: every block's hooks run.
		this.handlers = resolveHooks(layers(hooks, dirs), true, dirs.workspace, []).filter((h) => h.event === "PreToolUse");
	}

	async preToolUse(tool: string, input: unknown): Promise<NaiveVerdict> {
		let current = input;
		for (const handler of this.handlers) {
			const pattern = matcherPattern(handler.matcher);
			if (pattern !== undefined && !pattern.test(tool)) continue;
			const stdin = JSON.stringify({ session_id: "baseline", cwd: this.dirs.workspace, hook_event_name: "PreToolUse", tool_name: tool, tool_input: current });
			const result = await runHookProcess({ command: handler.command, cwd: this.dirs.workspace, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: this.dirs.home }, stdin, timeoutMs: handler.timeoutMs });
			const parsed = parseHookResult("PreToolUse", result, handler.timeoutMs);
			// A hook that could not answer is no reason to stop, to a naive host.
			if (parsed.verdict === "deny") return { blocked: parsed.reason ?? "blocked by a hook" };
			if (parsed.verdict !== "failed" && parsed.updatedInput !== undefined) current = parsed.updatedInput;
		}
		return { input: current };
	}
}
