/** What `warden` with no command does: checks for a terminal, opens the chat, draws it, and closes with the audit verdict. */
import { existsSync } from "node:fs";
import { EXIT } from "../cli/cli-error.js";
import type { ChatFlags } from "./chat-command.js";
import { EarlyPrompt } from "./early-prompt.js";

export const NO_TERMINAL = 'warden: no terminal on standard input; for one task without prompts use `warden run "<task>"`\n';

export async function startChat(flags: ChatFlags, out: (text: string) => void): Promise<number> {
	if (!process.stdin.isTTY) {
		process.stderr.write(NO_TERMINAL);
		return EXIT.usage;
	}
	// A usable prompt at once; the screen, the runtime and the model load behind it, side by side.
	const early = flags.plain ? undefined : EarlyPrompt.draw({ input: process.stdin, output: process.stdout }, process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "");
	try {
		return await openChat(flags, out, early);
	} finally {
		early?.withdraw();
	}
}

async function openChat(flags: ChatFlags, out: (text: string) => void, early: EarlyPrompt | undefined): Promise<number> {
	// Ink and React load here, not with the CLI; started now, their loading overlaps opening the state dir.
	const screen = flags.plain ? undefined : loadScreen();
	screen?.catch(() => undefined);
	const [{ Runtime }, { ChatController }] = await Promise.all([import("../../runtime/runtime.js"), import("./chat-controller.js")]);
	const runtime = await Runtime.open(flags.stateDir ? { stateDir: flags.stateDir } : {});
	try {
		const chat = await ChatController.open(runtime, flags);
		try {
			if (flags.plain) {
				const { runPlain } = await import("./plain-surface.js");
				await runPlain(chat, flags, out);
			} else {
				const { runScreen } = await (screen as Promise<typeof import("./screen.js")>);
				await runScreen(chat, flags, early);
			}
		} finally {
			await chat.close();
		}
		const verdict = await runtime.verifyAudit();
		out(
			verdict.ok
				? `session ${chat.sessionId} · audit: ${verdict.checked} records, hash chain valid\n`
				: `audit: CHAIN BROKEN at record ${verdict.firstBad.seq}: ${verdict.firstBad.reason}\n`,
		);
		return verdict.ok ? EXIT.ok : EXIT.failed;
	} finally {
		await runtime.close();
	}
}

/**
 * Ink decides once, when it loads, whether it runs under CI (`CI` or `CONTINUOUS_INTEGRATION` set)
 * and then draws only the last frame at exit. The chat only opens with a terminal on stdin, where a
 * person answers asks by key, so Ink is loaded as for a terminal; the variables are put back as
 * they were before any command runs.
 */
async function loadScreen(): Promise<typeof import("./screen.js")> {
	const names = ["CI", "CONTINUOUS_INTEGRATION"] as const;
	const saved = names.map((name) => [name, process.env[name]] as const);
	for (const name of names) if (process.env[name] !== undefined) process.env[name] = "false";
	try {
		// The screen bundled with Ink and React (scripts/bundle-screen.mjs) where the build made it: one file to read, not hundreds.
		const bundled = new URL("./screen.bundle.js", import.meta.url);
		if (existsSync(bundled)) return (await import(bundled.href)) as typeof import("./screen.js");
		return await import("./screen.js");
	} finally {
		for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
	}
}
