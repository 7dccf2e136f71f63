/**
 * The chat's slash commands as a table: name, usage, one line of help, and what it does. Each
 * answers on the transcript; none bypasses the runtime's own entry points.
 */
import { PERMISSION_MODES, type PermissionMode } from "../../kernel/admission/types.js";
import { ExplainError } from "../../runtime/explain-types.js";
import { UndoTargetError } from "../../runtime/undo-types.js";
import { resolveCliConfig } from "../cli/cli-config.js";
import { renderExplanation } from "../cli/explain-render.js";
import { policyCheckRequest } from "../cli/policy-command.js";
import { policyReport, renderPolicyReport } from "../cli/policy-report.js";
import { renderUndo } from "../cli/undo-command.js";
import { budgetReport } from "./budget-line.js";
import type { ChatFlags } from "./chat-command.js";
import { type ChatController, oneLine } from "./chat-controller.js";

export interface ChatCommand {
	name: string;
	usage: string;
	help: string;
	run(chat: ChatController, args: string, flags: ChatFlags): Promise<unknown>;
}

const say = (chat: ChatController, text: string, tone: "info" | "error" | "ok" = "info") => {
	chat.transcript.notice(text, tone);
	chat.changed();
};


export const CHAT_COMMANDS: readonly ChatCommand[] = [
	{
		name: "mode",
		usage: "/mode [plan|read-only|workspace-write|full-access]",
		help: "show or change the permission mode (Shift+Tab: plan ↔ workspace-write)",
		async run(chat, args) {
			const mode = args.trim();
			if (mode === "") return say(chat, `mode ${chat.currentSession.mode}; modes: ${PERMISSION_MODES.join(", ")}`);
			if (!(PERMISSION_MODES as readonly string[]).includes(mode)) return say(chat, `unknown mode ${mode}; modes: ${PERMISSION_MODES.join(", ")}`, "error");
			await chat.changeMode(mode as PermissionMode);
		},
	},
	{
		name: "model",
		usage: "/model [spec]",
		help: "show or change the model (the conversation goes on with it)",
		async run(chat, args) {
			const spec = args.trim();
			if (spec === "") return say(chat, `model ${chat.view().status.model}`);
			await chat.switchModel(spec);
			say(chat, `model ${spec}`, "ok");
		},
	},
	{
		name: "undo",
		usage: "/undo [call]",
		help: "put back the files this session (or one call) changed",
		async run(chat, args) {
			const call = args.trim();
			try {
				const result = await chat.runtime.undo(call === "" ? { session: chat.sessionId } : { call, session: chat.sessionId });
				say(chat, renderUndo(result).trimEnd(), result.refused.length > 0 ? "error" : "ok");
			} catch (err) {
				if (err instanceof UndoTargetError) return say(chat, err.message, "error");
				throw err;
			}
		},
	},
	{
		name: "explain",
		usage: "/explain <call>",
		help: "the operation tree of one call: proposal, decision, effects",
		async run(chat, args) {
			const id = args.trim();
			if (id === "") return say(chat, "usage: /explain <call>, e.g. /explain call_1_1_1", "error");
			try {
				say(chat, renderExplanation(await chat.runtime.explain(id, { session: chat.sessionId })).trimEnd());
			} catch (err) {
				if (err instanceof ExplainError) return say(chat, err.message, "error");
				throw err;
			}
		},
	},
	{
		name: "sessions",
		usage: "/sessions",
		help: "recent sessions in this state directory",
		async run(chat) {
			const rows = (await chat.runtime.listSessions(15)).filter((s) => !s.parent_session);
			say(chat, rows.map((s) => `${s.id.slice(0, 8)}  ${s.status.padEnd(6)} ${s.mode.padEnd(15)} turns ${s.turns}  ${s.workspace}`).join("\n") || "no sessions");
		},
	},
	{
		name: "resume",
		usage: "/resume <session>",
		help: "leave this session and continue another (an id or a unique prefix)",
		async run(chat, args) {
			const prefix = args.trim();
			const matches = (await chat.runtime.listSessions()).filter((s) => s.id.startsWith(prefix) && !s.parent_session);
			if (prefix === "" || matches.length !== 1) return say(chat, prefix === "" ? "usage: /resume <session>" : `${matches.length === 0 ? "no" : "more than one"} session ${prefix}`, "error");
			await chat.switchTo((matches[0] as { id: string }).id);
		},
	},
	{
		name: "budget",
		usage: "/budget",
		help: "what this session has used, and its limits",
		async run(chat) {
			say(chat, budgetReport(chat.currentSession.budgetUsage()));
		},
	},
	{
		name: "policy",
		usage: "/policy <tool> <json>",
		help: "the decision a call would get, as warden policy check says it; runs nothing",
		async run(chat, args, flags) {
			const match = /^(\S+)\s+([\s\S]+)$/.exec(args.trim());
			if (!match) return say(chat, "usage: /policy <tool> <json>, e.g. /policy shell {\"command\":\"git push\"}", "error");
			let parsed: unknown;
			try {
				parsed = JSON.parse(match[2] as string);
			} catch (err) {
				return say(chat, `not valid JSON: ${oneLine(err)}`, "error");
			}
			const config = await resolveCliConfig({ ...flags, workspace: chat.currentSession.workspace, mode: chat.currentSession.mode }, process.env, () => undefined);
			const result = await chat.runtime.checkPolicy(policyCheckRequest(config, match[1] as string, parsed));
			if (!result.valid) return say(chat, `${result.error} (a run would record this call as tool.invalid)`, "error");
			say(chat, renderPolicyReport(policyReport(result, config)).trimEnd());
		},
	},
	{
		name: "compact",
		usage: "/compact",
		help: "summarize the conversation so far to free the context window",
		async run(chat) {
			const outcome = await chat.currentSession.compact();
			if (!outcome.ok) return say(chat, `compaction failed: ${outcome.error}`, "error");
			say(chat, `conversation compacted: ${outcome.summarised} items summarised, ~${outcome.tokensBefore} → ~${outcome.tokensAfter} tokens`, "ok");
		},
	},
	{
		name: "clear",
		usage: "/clear",
		help: "clear the screen (the session and its evidence stay)",
		async run(chat) {
			chat.transcript.clear();
			chat.changed();
		},
	},
	{
		name: "help",
		usage: "/help",
		help: "this list",
		async run(chat) {
			say(chat, helpText());
		},
	},
	{
		name: "exit",
		usage: "/exit",
		help: "end the session and leave (also Ctrl-D)",
		async run() {
			return "exit";
		},
	},
];

export function helpText(): string {
	const width = Math.max(...CHAT_COMMANDS.map((c) => c.usage.length));
	return [
		...CHAT_COMMANDS.map((c) => `${c.usage.padEnd(width)}  ${c.help}`),
		`${"!<command>".padEnd(width)}  run a shell command yourself, governed and recorded like the agent's`,
		"keys: Enter send · Alt+Enter or \\ at the end: new line · ↑/↓ history · Esc interrupt · Ctrl-C cancel · Ctrl-D exit",
	].join("\n");
}

/** Runs one line typed at the prompt: a command, a `!` shell command, or a message to the model. */
export async function runLine(chat: ChatController, line: string, flags: ChatFlags): Promise<unknown> {
	const text = line.trim();
	if (text === "") return;
	try {
		if (text.startsWith("!")) return await chat.runShell(text.slice(1).trim());
		if (text.startsWith("/")) {
			const name = text.slice(1).split(/\s+/)[0] ?? "";
			const command = CHAT_COMMANDS.find((c) => c.name === name);
			if (!command) return say(chat, `unknown command /${name}; /help lists them`, "error");
			if (chat.running && command.name !== "help" && command.name !== "budget") return say(chat, "a turn is running: wait, or Esc / Ctrl-C to stop it", "error");
			return await command.run(chat, text.slice(1 + name.length).trimStart(), flags);
		}
		if (chat.running) return say(chat, "a turn is running: wait, or Esc / Ctrl-C to stop it", "error");
		await chat.send(text);
	} catch (err) {
		say(chat, oneLine(err), "error");
	}
}
