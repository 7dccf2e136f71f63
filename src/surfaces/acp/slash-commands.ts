/**
 * The commands Warden offers an ACP client (`available_commands_update`). Each answers from the
 * runtime itself, without a model turn; a prompt that does not start with one is a turn.
 */
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { Runtime } from "../../runtime/runtime.js";
import type { Session } from "../../runtime/session.js";

interface SlashCommand {
	command: AvailableCommand;
	run(context: { runtime: Runtime; session: Session }): Promise<string>;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
	{
		command: { name: "audit", description: "Verify Warden's hash-chained audit of every session in this state directory" },
		async run({ runtime }) {
			const verdict = await runtime.verifyAudit();
			return verdict.ok
				? `audit: ${verdict.checked} records in ${runtime.stateDir}, hash chain valid`
				: `audit: CHAIN BROKEN at record ${verdict.firstBad.seq}: ${verdict.firstBad.reason}`;
		},
	},
	{
		command: { name: "budget", description: "What this session has used, against its limits" },
		async run({ session }) {
			const usage = session.budgetUsage();
			const lines = Object.entries(usage).map(([counter, { used, limit }]) => `${counter}: ${used}${limit === undefined ? "" : ` of ${limit}`}`);
			return `budget of session ${session.id} (mode ${session.mode}):\n${lines.join("\n")}`;
		},
	},
];

/** The command a prompt invokes (`/audit`, `/budget`), if it is exactly one of them. */
export function slashCommand(prompt: string): SlashCommand | undefined {
	const match = /^\/([a-z]+)\s*$/.exec(prompt.trim());
	return match ? SLASH_COMMANDS.find((c) => c.command.name === match[1]) : undefined;
}
