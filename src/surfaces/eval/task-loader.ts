/**
 * Reads and checks safety tasks. Every problem is one line naming the file and the field, so a
 * task author sees at once what to fix; nothing is defaulted that the format does not default.
 */
import { parseTaskHooks } from "./task-hooks.js";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import picomatch from "picomatch";
import { parse as parseYaml } from "yaml";
import { parseRule } from "../../kernel/admission/rules.js";
import { PERMISSION_MODES, type PermissionMode } from "../../kernel/admission/types.js";
import { checkGrantSpec } from "../../kernel/authority/capability.js";
import { taskCeiling } from "../../kernel/authority/task-ceiling.js";
import { checkBudgetLimits } from "../../kernel/budget/budget-limits.js";
import { CRASH_POINTS, type CrashPoint } from "../../store/fault-injection.js";
import { parseFlowSettings, parseReleaseAnswer } from "./task-flow.js";
import { parseMcpServers } from "./task-mcp.js";
import { ACP_ANSWERS, type AcpAnswer, type AcpTaskSpec, type EffectSpec, type EvalTask, type Expectation, type FixtureSpec, type GitFixture, type PlannedCall, type PlannedStep, type TaskChecks, type TaskRules, TERMINAL_EFFECT_KINDS, TERMINAL_STATES, TERMINAL_SURFACES, type TerminalTaskSpec } from "./task-types.js";

export class TaskFormatError extends Error {
	override name = "TaskFormatError";
}

const TASK_KEYS = ["id", "category", "description", "mode", "rules", "run_deny", "on_ask", "budget", "grants", "ceiling", "flow", "on_release", "fixture", "plan", "checks", "crash_at", "retry", "acp", "mcp_servers", "hooks", "late_answer", "later_session", "terminal", "trust_project"];
const TERMINAL_KEYS = ["surface"];
const ACP_KEYS = ["answer", "cancel_at", "terminals"];
const FIXTURE_KEYS = ["files", "home_files", "outside_files", "symlinks", "hardlinks", "env", "git"];
const GIT_KEYS = ["commit", "bare"];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STEP_KEYS = ["text", "tool_calls"];
const CALL_KEYS = ["id", "name", "arguments", "expect", "effect"];
const RULE_KEYS = ["allow", "ask", "deny"];
const CHECK_KEYS = ["not_in_evidence", "unknown_effect"];
const PATH_EFFECTS = ["created", "modified", "deleted"] as const;
const EFFECT_KINDS = [...PATH_EFFECTS, "contains", "sink", "model_saw", "mcp_call", ...TERMINAL_EFFECT_KINDS];
/** Ids appear in sink URLs and file names, so they stay URL- and path-safe. */
const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

type Fail = (field: string, problem: string) => never;

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
	if (value === null) return "null";
	if (value === undefined) return "nothing";
	if (Array.isArray(value)) return "a list";
	return typeof value === "object" ? "a mapping" : `${typeof value} ${JSON.stringify(value)}`;
}

function rejectUnknown(value: Record<string, unknown>, known: string[], field: string, fail: Fail): void {
	const unknown = Object.keys(value).find((key) => !known.includes(key));
	if (unknown !== undefined) fail(field === "" ? unknown : `${field}.${unknown}`, `unknown key (allowed: ${known.join(", ")})`);
}

function stringField(value: unknown, field: string, fail: Fail): string {
	if (typeof value !== "string") fail(field, `must be a string, got ${describe(value)}`);
	return value as string;
}

function nonEmptyString(value: unknown, field: string, fail: Fail): string {
	const text = stringField(value, field, fail);
	if (text === "") fail(field, "must not be empty");
	return text;
}

function stringList(value: unknown, field: string, fail: Fail): string[] {
	if (value === undefined) return [];
	if (!Array.isArray(value)) fail(field, `must be a list of strings, got ${describe(value)}`);
	return (value as unknown[]).map((item, i) => nonEmptyString(item, `${field}[${i}]`, fail));
}

/** A fixture path stays inside the directory it is created in. */
function relativePath(value: string, field: string, fail: Fail): string {
	if (value.startsWith("/") || value.startsWith("{")) fail(field, `"${value}" must be a relative path`);
	if (value.split("/").some((part) => part === "..")) fail(field, `"${value}" must not contain ".."`);
	return value;
}

function stringMap(value: unknown, field: string, fail: Fail, checkValue: (v: unknown, f: string) => string): Record<string, string> {
	if (value === undefined) return {};
	if (!isObject(value)) fail(field, `must be a mapping of path to text, got ${describe(value)}`);
	const out: Record<string, string> = {};
	for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
		const path = relativePath(key, `${field}.${key}`, fail);
		out[path] = checkValue(v, `${field}.${key}`);
	}
	return out;
}

function parseEnv(value: unknown, fail: Fail): Record<string, string> {
	if (value === undefined) return {};
	if (!isObject(value)) fail("fixture.env", `must be a mapping of variable name to text, got ${describe(value)}`);
	const out: Record<string, string> = {};
	for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
		if (!ENV_NAME.test(name) || name === "HOME" || name === "PATH") fail(`fixture.env.${name}`, "must be a variable name other than HOME and PATH");
		out[name] = stringField(v, `fixture.env.${name}`, fail);
	}
	return out;
}

function parseFixture(value: unknown, fail: Fail): FixtureSpec {
	if (value === undefined) return { files: {}, homeFiles: {}, outsideFiles: {}, symlinks: {}, hardlinks: {} };
	if (!isObject(value)) fail("fixture", `must be a mapping, got ${describe(value)}`);
	const fixture = value as Record<string, unknown>;
	rejectUnknown(fixture, FIXTURE_KEYS, "fixture", fail);
	const content = (v: unknown, f: string) => stringField(v, f, fail);
	const target = (v: unknown, f: string) => nonEmptyString(v, f, fail);
	return {
		files: stringMap(fixture.files, "fixture.files", fail, content),
		homeFiles: stringMap(fixture.home_files, "fixture.home_files", fail, content),
		outsideFiles: stringMap(fixture.outside_files, "fixture.outside_files", fail, content),
		symlinks: stringMap(fixture.symlinks, "fixture.symlinks", fail, target),
		hardlinks: stringMap(fixture.hardlinks, "fixture.hardlinks", fail, target),
		env: parseEnv(fixture.env, fail),
		...(fixture.git !== undefined ? { git: parseGit(fixture.git, Object.keys(fixture.files ?? {}), fail) } : {}),
	};
}

/** `git: { commit: [files], bare: [dirs] }`: the workspace as a repository with those files committed, and empty bare repositories beside it. */
function parseGit(value: unknown, files: string[], fail: Fail): GitFixture {
	if (!isObject(value)) fail("fixture.git", `must be a mapping with commit and bare lists, got ${describe(value)}`);
	const git = value as Record<string, unknown>;
	rejectUnknown(git, GIT_KEYS, "fixture.git", fail);
	const commit = stringList(git.commit, "fixture.git.commit", fail).map((p, i) => relativePath(p, `fixture.git.commit[${i}]`, fail));
	for (const [i, p] of commit.entries()) if (!files.includes(p)) fail(`fixture.git.commit[${i}]`, `"${p}" is not one of fixture.files`);
	const bare = stringList(git.bare, "fixture.git.bare", fail).map((p, i) => relativePath(p, `fixture.git.bare[${i}]`, fail));
	return { commit, bare };
}

function parseRules(value: unknown, fail: Fail): TaskRules {
	if (value === undefined) return { allow: [], ask: [], deny: [] };
	if (!isObject(value)) fail("rules", `must be a mapping with allow, ask and deny lists, got ${describe(value)}`);
	const rules = value as Record<string, unknown>;
	rejectUnknown(rules, RULE_KEYS, "rules", fail);
	const parsed = { allow: stringList(rules.allow, "rules.allow", fail), ask: stringList(rules.ask, "rules.ask", fail), deny: stringList(rules.deny, "rules.deny", fail) };
	for (const outcome of RULE_KEYS as (keyof TaskRules)[]) checkRules(parsed[outcome], outcome, `rules.${outcome}`, fail);
	return parsed;
}

function checkRules(texts: string[], outcome: "allow" | "ask" | "deny", field: string, fail: Fail): void {
	texts.forEach((text, i) => {
		try {
			parseRule(text, outcome, "task");
		} catch (err) {
			fail(`${field}[${i}]`, err instanceof Error ? err.message : String(err));
		}
	});
}

function parseEffect(value: unknown, field: string, fail: Fail): EffectSpec {
	if (!isObject(value)) fail(field, `must be a mapping such as { created: <path> }, got ${describe(value)}`);
	const effect = value as Record<string, unknown>;
	const kinds = Object.keys(effect).filter((key) => EFFECT_KINDS.includes(key));
	if (kinds.length !== 1) fail(field, `must name exactly one of ${EFFECT_KINDS.join(", ")}`);
	const kind = kinds[0]!;
	const extra = Object.keys(effect).find((key) => key !== kind && !(kind === "sink" && key === "body_contains"));
	if (extra !== undefined) fail(`${field}.${extra}`, `unknown key for a ${kind} effect`);
	const body = effect[kind];
	if ((PATH_EFFECTS as readonly string[]).includes(kind)) {
		return { kind: kind as (typeof PATH_EFFECTS)[number], path: nonEmptyString(body, `${field}.${kind}`, fail) };
	}
	if (kind === "model_saw" || kind === "screen_shows" || kind === "screen_hides") return { kind, text: nonEmptyString(body, `${field}.${kind}`, fail) };
	if (kind === "terminal_state") {
		const state = stringField(body, `${field}.terminal_state`, fail);
		if (!(TERMINAL_STATES as readonly string[]).includes(state)) fail(`${field}.terminal_state`, `must be one of ${TERMINAL_STATES.join(", ")}, got "${state}"`);
		return { kind, state: state as (typeof TERMINAL_STATES)[number] };
	}
	if (kind === "mcp_call") {
		if (!isObject(body)) fail(`${field}.mcp_call`, `must be a mapping { server, tool, text? }, got ${describe(body)}`);
		rejectUnknown(body, ["server", "tool", "text"], `${field}.mcp_call`, fail);
		const spec: EffectSpec = { kind, server: nonEmptyString(body.server, `${field}.mcp_call.server`, fail), tool: nonEmptyString(body.tool, `${field}.mcp_call.tool`, fail) };
		if (body.text !== undefined) spec.text = nonEmptyString(body.text, `${field}.mcp_call.text`, fail);
		return spec;
	}
	if (kind === "contains") {
		if (!isObject(body)) fail(`${field}.contains`, `must be a mapping { path, text }, got ${describe(body)}`);
		const spec = body as Record<string, unknown>;
		rejectUnknown(spec, ["path", "text"], `${field}.contains`, fail);
		return { kind, path: nonEmptyString(spec.path, `${field}.contains.path`, fail), text: nonEmptyString(spec.text, `${field}.contains.text`, fail) };
	}
	// A sink effect: `sink: <path>` with an optional sibling `body_contains`, or the nested mapping form.
	let path: unknown = body;
	let bodyContains: unknown = effect.body_contains;
	if (isObject(body)) {
		rejectUnknown(body, ["path", "body_contains"], `${field}.sink`, fail);
		if (bodyContains !== undefined && body.body_contains !== undefined) fail(`${field}.body_contains`, "given twice");
		path = body.path ?? "";
		bodyContains = bodyContains ?? body.body_contains;
	}
	const sink: EffectSpec = { kind: "sink", path: stringField(path, `${field}.sink`, fail) };
	if (bodyContains !== undefined) sink.bodyContains = nonEmptyString(bodyContains, `${field}.body_contains`, fail);
	return sink;
}

function parseCall(value: unknown, field: string, fail: Fail): PlannedCall {
	if (!isObject(value)) fail(field, `must be a mapping, got ${describe(value)}`);
	const call = value as Record<string, unknown>;
	rejectUnknown(call, CALL_KEYS, field, fail);
	const name = nonEmptyString(call.name, `${field}.name`, fail);
	let args: PlannedCall["arguments"] = {};
	if (call.arguments !== undefined) {
		if (typeof call.arguments !== "string" && !isObject(call.arguments)) {
			fail(`${field}.arguments`, `must be a mapping or a string, got ${describe(call.arguments)}`);
		}
		args = call.arguments as PlannedCall["arguments"];
	}
	if (call.expect !== "allowed" && call.expect !== "forbidden") {
		fail(`${field}.expect`, `must be "allowed" or "forbidden", got ${describe(call.expect)}`);
	}
	if (call.effect === undefined) fail(`${field}.effect`, "is required: the one observable effect the call would have");
	const planned: PlannedCall = { name, arguments: args, expect: call.expect as Expectation, effect: parseEffect(call.effect, `${field}.effect`, fail) };
	if (call.id !== undefined) planned.id = nonEmptyString(call.id, `${field}.id`, fail);
	return planned;
}

function parsePlan(value: unknown, fail: Fail, name = "plan"): PlannedStep[] {
	if (!Array.isArray(value) || value.length === 0) fail(name, `must be a non-empty list of steps, got ${describe(value)}`);
	const steps = value as unknown[];
	return steps.map((raw, i) => {
		const field = `${name}[${i}]`;
		if (!isObject(raw)) fail(field, `must be a mapping, got ${describe(raw)}`);
		const step = raw as Record<string, unknown>;
		rejectUnknown(step, STEP_KEYS, field, fail);
		if (step.text === undefined && step.tool_calls === undefined) fail(field, 'needs "text", "tool_calls" or both');
		const parsed: PlannedStep = { calls: [] };
		if (step.text !== undefined) parsed.text = stringField(step.text, `${field}.text`, fail);
		if (step.tool_calls !== undefined) {
			if (!Array.isArray(step.tool_calls) || step.tool_calls.length === 0) {
				fail(`${field}.tool_calls`, `must be a non-empty list, got ${describe(step.tool_calls)}`);
			}
			parsed.calls = (step.tool_calls as unknown[]).map((call, j) => parseCall(call, `${field}.tool_calls[${j}]`, fail));
		}
		// A model answer without tool calls ends the turn, so any step after it would never run.
		if (parsed.calls.length === 0 && i < steps.length - 1) fail(field, "has no tool_calls, which ends the turn; only the last step may be text-only");
		return parsed;
	});
}

function parseChecks(value: unknown, fail: Fail): TaskChecks {
	if (value === undefined) return { notInEvidence: [], unknownEffects: [] };
	if (!isObject(value)) fail("checks", `must be a mapping, got ${describe(value)}`);
	rejectUnknown(value as Record<string, unknown>, CHECK_KEYS, "checks", fail);
	return {
		notInEvidence: stringList((value as Record<string, unknown>).not_in_evidence, "checks.not_in_evidence", fail),
		unknownEffects: stringList((value as Record<string, unknown>).unknown_effect, "checks.unknown_effect", fail),
	};
}

/** Checks one decoded task. `category` is the folder it sits in; `label` names it in errors. */
export function parseTask(value: unknown, label: string, category: string): EvalTask {
	const fail: Fail = (field, problem) => {
		throw new TaskFormatError(`${label}: ${field === "" ? "" : `${field}: `}${problem}`.replace(/\s*\n\s*/g, " "));
	};
	if (!isObject(value)) fail("", `a task must be a mapping, got ${describe(value)}`);
	const task = value as Record<string, unknown>;
	rejectUnknown(task, TASK_KEYS, "", fail);
	const id = task.id === undefined ? basename(label).replace(/\.ya?ml$/, "") : nonEmptyString(task.id, "id", fail);
	if (!TASK_ID.test(id)) fail("id", `"${id}" may hold only letters, digits, ".", "_" and "-"`);
	const declared = nonEmptyString(task.category, "category", fail);
	if (declared !== category) fail("category", `"${declared}" must match the folder the task is in ("${category}")`);
	const mode = task.mode === undefined ? "workspace-write" : stringField(task.mode, "mode", fail);
	if (!(PERMISSION_MODES as readonly string[]).includes(mode)) fail("mode", `must be one of ${PERMISSION_MODES.join(", ")}, got "${mode}"`);
	const onAsk = task.on_ask === undefined ? "deny" : task.on_ask;
	if (onAsk !== "deny" && onAsk !== "allow") fail("on_ask", `must be "deny" or "allow", got ${describe(onAsk)}`);
	const runDeny = stringList(task.run_deny, "run_deny", fail);
	checkRules(runDeny, "deny", "run_deny", fail);
	let budget: EvalTask["budget"] = {};
	try {
		budget = checkBudgetLimits(task.budget, "budget");
	} catch (err) {
		fail("", err instanceof Error ? err.message : String(err));
	}
	const authority: Pick<EvalTask, "grants" | "ceiling"> = {};
	try {
		if (task.grants !== undefined) {
			if (!Array.isArray(task.grants)) fail("grants", `must be a list of { resource, rights, … }, got ${describe(task.grants)}`);
			authority.grants = (task.grants as unknown[]).map((g, i) => checkGrantSpec(g, `grants[${i}]`));
		}
		if (task.ceiling !== undefined) {
			taskCeiling(task.ceiling);
			authority.ceiling = task.ceiling as EvalTask["ceiling"];
		}
	} catch (err) {
		if (err instanceof TaskFormatError) throw err;
		fail("", err instanceof Error ? err.message : String(err));
	}
	const flow = parseFlowSettings(task.flow, fail);
	const crash = parseCrashAt(task, fail);
	if (task.retry !== undefined && crash === undefined) fail("retry", "needs crash_at: it is the plan a resumed session runs after the crash and the reopens");
	const retry = task.retry === undefined ? undefined : parsePlan(task.retry, fail, "retry");
	const acp = parseAcp(task.acp, fail);
	if (acp !== undefined && task.on_ask !== undefined) fail("on_ask", "cannot be combined with acp: acp.answer is the client's answer to every ask");
	const mcpServers = parseMcpServers(task.mcp_servers, fail);
	const hooks = parseTaskHooks(task.hooks, fail);
	const later = task.later_session === undefined ? undefined : parsePlan(task.later_session, fail, "later_session");
	const terminal = parseTerminal(task, fail);
	if (task.trust_project !== undefined && typeof task.trust_project !== "boolean") fail("trust_project", `must be true or false, got ${describe(task.trust_project)}`);
	if (later !== undefined && (crash !== undefined || acp !== undefined)) fail("later_session", "cannot be combined with crash_at or acp: the second session opens on the first one's state dir after it ended");
	return {
		id,
		category,
		description: task.description === undefined ? "" : stringField(task.description, "description", fail),
		file: label,
		mode: mode as PermissionMode,
		rules: parseRules(task.rules, fail),
		runDeny,
		onAsk: onAsk as "allow" | "deny",
		budget,
		...authority,
		...(flow === undefined ? {} : { flow }),
		onRelease: parseReleaseAnswer(task.on_release, fail),
		...lateAnswerOf(task, fail),
		fixture: parseFixture(task.fixture, fail),
		plan: parsePlan(task.plan, fail),
		checks: parseChecks(task.checks, fail),
		...(crash === undefined ? {} : { crashAt: crash }),
		...(retry === undefined ? {} : { retry }),
		...(acp === undefined ? {} : { acp }),
		...(mcpServers === undefined ? {} : { mcpServers }),
		...(hooks === undefined ? {} : { hooks }),
		...(later === undefined ? {} : { laterSession: later }),
		...(terminal === undefined ? {} : { terminal }),
		...(task.trust_project === true ? { trustProject: true } : {}),
	};
}

/** A terminal task runs through the CLI in a pseudo-terminal, which takes mode, rules, run_deny and on_ask. */
const NOT_WITH_TERMINAL = ["budget", "grants", "ceiling", "flow", "on_release", "acp", "hooks", "late_answer", "crash_at", "later_session", "mcp_servers"];

function parseTerminal(task: Record<string, unknown>, fail: Fail): TerminalTaskSpec | undefined {
	const value = task.terminal;
	if (value === undefined) return undefined;
	if (!isObject(value)) fail("terminal", `must be a mapping { surface }, got ${describe(value)}`);
	rejectUnknown(value, TERMINAL_KEYS, "terminal", fail);
	const surface = stringField(value.surface, "terminal.surface", fail);
	if (!(TERMINAL_SURFACES as readonly string[]).includes(surface)) fail("terminal.surface", `must be one of ${TERMINAL_SURFACES.join(", ")}, got "${surface}"`);
	const other = NOT_WITH_TERMINAL.find((key) => task[key] !== undefined);
	if (other !== undefined) fail(other, "cannot be combined with terminal: a terminal task runs the CLI in a pseudo-terminal, which takes only mode, rules, run_deny and on_ask");
	return { surface: surface as TerminalTaskSpec["surface"] };
}

const LATE_ANSWERS = ["allow_once", "allow_always"] as const;

/** `late_answer`: the full runner's asks expire unanswered, then this answer comes from another surface, too late. */
function lateAnswerOf(task: Record<string, unknown>, fail: Fail): Pick<EvalTask, "lateAnswer"> {
	if (task.late_answer === undefined) return {};
	const answer = stringField(task.late_answer, "late_answer", fail);
	if (!(LATE_ANSWERS as readonly string[]).includes(answer)) fail("late_answer", `must be one of ${LATE_ANSWERS.join(", ")}, got "${answer}"`);
	if (task.on_ask === "allow") fail("late_answer", "cannot be combined with on_ask: allow (a host answering at once is not late)");
	if (task.acp !== undefined) fail("late_answer", "cannot be combined with acp (the editor answers there)");
	return { lateAnswer: answer as (typeof LATE_ANSWERS)[number] };
}

function parseAcp(value: unknown, fail: Fail): AcpTaskSpec | undefined {
	if (value === undefined) return undefined;
	if (!isObject(value)) fail("acp", `must be a mapping { answer, cancel_at? }, got ${describe(value)}`);
	const spec = value as Record<string, unknown>;
	rejectUnknown(spec, ACP_KEYS, "acp", fail);
	const answer = stringField(spec.answer, "acp.answer", fail);
	if (!(ACP_ANSWERS as readonly string[]).includes(answer)) fail("acp.answer", `must be one of ${ACP_ANSWERS.join(", ")}, got "${answer}"`);
	const cancelAt = spec.cancel_at === undefined ? undefined : nonEmptyString(spec.cancel_at, "acp.cancel_at", fail);
	if (spec.terminals !== undefined && typeof spec.terminals !== "boolean") fail("acp.terminals", `must be true or false, got ${describe(spec.terminals)}`);
	return { answer: answer as AcpAnswer, ...(cancelAt === undefined ? {} : { cancelAt }), ...(spec.terminals === true ? { terminals: true } : {}) };
}

/** What a crashed CLI run can be given is its command line and its user config (grants): the other settings cannot be combined. */
const NOT_WITH_CRASH = ["budget", "ceiling", "flow", "on_release", "acp", "hooks", "late_answer"];

function parseCrashAt(task: Record<string, unknown>, fail: Fail): CrashPoint | undefined {
	if (task.crash_at === undefined) return undefined;
	const point = stringField(task.crash_at, "crash_at", fail);
	if (!(CRASH_POINTS as readonly string[]).includes(point)) fail("crash_at", `must be one of ${CRASH_POINTS.join(", ")}, got "${point}"`);
	const other = NOT_WITH_CRASH.find((key) => task[key] !== undefined);
	if (other !== undefined) fail(other, "cannot be combined with crash_at: a recovery task runs through the CLI, which takes only mode, rules, run_deny, on_ask and grants");
	return point as CrashPoint;
}

/** Decodes and checks one task file's text. */
export function parseTaskText(text: string, label: string, category: string): EvalTask {
	let value: unknown;
	try {
		value = parseYaml(text);
	} catch (err) {
		const first = err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err);
		throw new TaskFormatError(`${label}: is not valid YAML: ${first}`);
	}
	return parseTask(value, label, category);
}

/** Whether a task is selected by a glob over its id or `<category>/<id>`. */
export function taskMatches(task: Pick<EvalTask, "id" | "category">, filter: string | undefined): boolean {
	if (filter === undefined) return true;
	const isMatch = picomatch(filter, { dot: true });
	return isMatch(task.id) || isMatch(`${task.category}/${task.id}`);
}

/** Every task under `dir` (one folder a category), sorted by category then id. */
export function loadTasks(dir: string, filter?: string): EvalTask[] {
	let entries: string[];
	try {
		entries = readdirSync(dir).sort();
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		throw new TaskFormatError(`tasks directory ${dir} cannot be read (${code ?? String(err)})`);
	}
	const tasks: EvalTask[] = [];
	const seen = new Map<string, string>();
	for (const category of entries) {
		const folder = join(dir, category);
		if (!statSync(folder).isDirectory()) {
			if (/\.ya?ml$/.test(category)) throw new TaskFormatError(`${label(folder)}: a task must sit in a folder named for its category`);
			continue;
		}
		for (const name of readdirSync(folder).sort()) {
			if (!/\.ya?ml$/.test(name)) continue;
			const file = join(folder, name);
			const task = parseTaskText(readFileSync(file, "utf8"), label(file), category);
			const other = seen.get(task.id);
			if (other !== undefined) throw new TaskFormatError(`${task.file}: id: "${task.id}" is also the id of ${other}`);
			seen.set(task.id, task.file);
			if (taskMatches(task, filter)) tasks.push(task);
		}
	}
	return tasks;
}

/** Paths in messages are relative to the working directory when that is shorter. */
function label(file: string): string {
	const rel = relative(process.cwd(), file);
	return rel !== "" && !rel.startsWith("..") ? rel : file;
}
