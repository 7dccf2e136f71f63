/**
 * The baselines: the task's plan executed step by step by the plain tools, behind no gate
 * (`direct`), behind a confirmation wrapper that asks for every call and is answered yes
 * (`confirm`), or behind a static allow-list by tool category (`category`). The world is
 * photographed before and after each step, exactly as for the full runner.
 */
import { join } from "node:path";
import { categoryAllows } from "./category-policy.js";
import { judgeEffect, type ResolvedEffect } from "./effect-oracle.js";
import { resolveEffect } from "./effect-resolution.js";
import { findInEvidence } from "./evidence-search.js";
import type { TaskDirs } from "./fixture.js";
import { expandValue } from "./task-variables.js";
import { PLAIN_TOOL_NAMES, type PlainResult, runPlainTool } from "./plain-tools.js";
import { runSandboxed, type SandboxInfo } from "./sandbox-shell.js";
import type { SinkServer } from "./sink-server.js";
import { type CallRecord, callIdFor, LATER_PREFIX, type TaskRun } from "./task-run.js";
import { type EvalTask, isTerminalEffect, isWorldEffect, type TerminalEffect } from "./task-types.js";
import { judgeTerminalEffect } from "./terminal-oracle.js";
import { PlainTerminal } from "./plain-terminal.js";
import { snapshotWorld } from "./world-snapshot.js";
import { PlainMcp } from "./eval-mcp-runs.js";
import { NaiveHooks } from "./task-hooks.js";
import type { PlainNote } from "./plain-memory.js";

export type BaselineName = "direct" | "confirm" | "category";

interface Gated {
	decision: "allow" | "refuse" | "invalid";
	result: PlainResult;
}

/** Raw arguments decoded the way the runtime does it; undefined when they are not JSON. */
function decode(args: unknown): { ok: true; value: unknown } | { ok: false } {
	if (typeof args !== "string") return { ok: true, value: args };
	if (args.trim() === "") return { ok: true, value: {} };
	try {
		return { ok: true, value: JSON.parse(args) as unknown };
	} catch {
		return { ok: false };
	}
}

export async function runBaseline(task: EvalTask, dirs: TaskDirs, sink: SinkServer, runner: BaselineName, sandbox: SandboxInfo): Promise<TaskRun> {
	const run: TaskRun = { task, runner, calls: [], problems: [], failures: [], prompts: 0, releases: 0 };
	// A naive agent hands its own environment to every command it runs.
	const exported = Object.entries(task.fixture.env ?? {})
		.map(([name, value]) => `export ${name}='${value.replaceAll("'", "'\\''")}'; `)
		.join("");
	const shell = sandbox.available ? (command: string) => runSandboxed(sandbox.detail, dirs, exported + command) : undefined;
	// JIT tools run as files under the task's directory, outside the three observed ones.
	// A naive agent's memory: notes kept verbatim across its sessions, nothing about where they came from.
	const ctx = { workspace: dirs.workspace, writableRoot: dirs.root, shell, jitTools: new Map<string, string>(), scratch: join(dirs.root, "jit"), memory: [] as PlainNote[] };
	const roots = [dirs.workspace, dirs.home, dirs.outside];
	const transcript: unknown[] = [];
	// A naive MCP client: every tool every server lists, no review, no pin, no flow check.
	const plainMcp = task.mcpServers?.length ? await PlainMcp.start(task, dirs) : undefined;
	// A naive hook host: its hooks see only the top-level agent's built-in tools.
	const hooks = task.hooks ? new NaiveHooks(task.hooks, dirs) : undefined;
	// A `surfaces` task: the agent's terminal prints what it gets, as a plain one does.
	const terminal = task.terminal ? await PlainTerminal.open(runner) : undefined;
	if (terminal && "error" in terminal) {
		run.problems.push(terminal.error);
		return run;
	}
	const onScreen: { record: CallRecord; effect: ResolvedEffect & { kind: TerminalEffect["kind"] } }[] = [];

	const gate = async (name: string, rawArgs: unknown): Promise<Gated> => {
		const decoded = decode(rawArgs);
		if (!decoded.ok) return { decision: "invalid", result: { output: "arguments are not valid JSON", isError: true } };
		const mcp = plainMcp?.route(name);
		if (mcp) {
			if (runner === "category") return { decision: "refuse", result: { output: `tool ${name} is not on the allow-list`, isError: true } };
			if (runner === "confirm") run.prompts++;
			return { decision: "allow", result: await plainMcp!.call(mcp, decoded.value) };
		}
		if (!(PLAIN_TOOL_NAMES as readonly string[]).includes(name) && !ctx.jitTools.has(name)) {
			return runner === "category"
				? { decision: "refuse", result: { output: `tool ${name} is not on the allow-list`, isError: true } }
				: { decision: "invalid", result: { output: `unknown tool ${name}`, isError: true } };
		}
		if (runner === "confirm") run.prompts++;
		if (runner === "category") {
			const answer = categoryAllows(name, decoded.value);
			if (!answer.allowed) return { decision: "refuse", result: { output: `refused: ${answer.reason}`, isError: true } };
		}
		const hooked = hooks ? await hooks.preToolUse(name, decoded.value) : { input: decoded.value };
		if ("blocked" in hooked) return { decision: "refuse", result: { output: `blocked by a hook: ${hooked.blocked}`, isError: true } };
		return { decision: "allow", result: await runPlainTool(name, hooked.input, ctx) };
	};

	// The later session, when there is one, is the same agent again: the same tools, the same memory.
	const sessions = [
		{ plan: task.plan, prefix: "", offset: 0 },
		{ plan: task.laterSession ?? [], prefix: LATER_PREFIX, offset: task.plan.length },
	];
	for (const { plan, prefix, offset } of sessions)
	for (const [s, step] of plan.entries()) {
		if (step.text !== undefined) await terminal?.said(step.text);
		if (step.calls.length === 0) break;
		const before = await snapshotWorld(roots);
		const mark = sink.mark;
		const done: { record: CallRecord; effect: ResolvedEffect | undefined; output: string }[] = [];
		for (const [c, call] of step.calls.entries()) {
			const callId = prefix + callIdFor(s + 1, c + 1);
			const args = expandValue(call.arguments, dirs.places);
			await terminal?.proposed(call.name, args);
			const { decision, result } = await gate(call.name, args);
			await terminal?.printed(result.output);
			transcript.push({ call_id: callId, tool: call.name, arguments: args, result: result.output });
			const outcome = result.notRun !== undefined ? "not-run" : decision === "allow" ? (result.isError ? "failed" : "completed") : decision === "refuse" ? "refused" : "invalid";
			const record: CallRecord = {
				callId,
				step: offset + s + 1,
				tool: call.name,
				expect: call.expect,
				effect: call.effect,
				judgement: { undecidable: "not observed" },
				decision,
				outcome,
				audited: null,
			};
			const resolved = await resolveEffect(call.effect, dirs, task.id, runner);
			if ("error" in resolved) record.judgement = { undecidable: resolved.error };
			done.push({ record, effect: "error" in resolved ? undefined : resolved, output: result.output });
		}
		const after = await snapshotWorld(roots);
		const requests = sink.requests(mark);
		for (const { record, effect, output } of done) {
			if (effect !== undefined && isTerminalEffect(effect)) {
				// Judged once the run is over: what the terminal shows at the end counts too.
				onScreen.push({ record, effect });
			} else if (effect !== undefined && record.outcome !== "not-run") {
				record.judgement = judgeEffect(effect, { before, after, sink: requests, toolResult: output });
				// No baseline keeps an audit, so a performed effect is never accounted for.
				if (isWorldEffect(effect) && "happened" in record.judgement && record.judgement.happened) record.audited = false;
			} else if (record.outcome === "not-run") {
				record.judgement = { undecidable: `not run: baseline shell commands run only inside bubblewrap (${sandbox.detail})` };
			}
			run.calls.push(record);
		}
	}
	await plainMcp?.close();
	if (terminal) {
		const seen = terminal.observation();
		for (const { record, effect } of onScreen) record.judgement = judgeTerminalEffect(effect, seen);
		terminal.close();
	}
	// Nothing here records what became of a call whose server went away.
	for (const callId of task.checks.unknownEffects) run.failures.push(`unknown_effect: ${callId} has no record of its unknown effect (a baseline keeps none)`);
	// A naive agent's only record is its transcript: the calls it made and what came back.
	for (const hit of findInEvidence(task.checks.notInEvidence, { transcript })) run.failures.push(`not_in_evidence: ${hit}`);
	return run;
}
