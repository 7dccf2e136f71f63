/**
 * A command run in an editor's terminal instead of Warden's own process: an ACP client that offers
 * `terminal` shows the command's output live where the user works. The kernel hands over only a
 * command already wrapped in its sandbox (the program and arguments of the wrapper, with the
 * command's whole environment sealed inside them), so where it runs changes nothing about what it
 * may do. This module does no policy; it only moves the run.
 */
import type { ShellRunResult } from "./shell-provider.js";

export interface EditorTerminalRun {
	/** The sandbox wrapper and its arguments (the command is inside them). */
	program: string;
	args: readonly string[];
	/** The wrapper's own environment. */
	env: NodeJS.ProcessEnv;
	cwd: string;
	timeoutMs: number;
	maxOutputBytes: number;
	signal: AbortSignal;
	/** The tool call it runs for, so the editor can show the terminal with it. */
	callId: string;
}

export interface EditorTerminals {
	/** Named in the effect record of every command it runs (e.g. `acp-client`). */
	readonly name: string;
	/** Output is stdout and stderr together, as a terminal shows them. */
	run(request: EditorTerminalRun): Promise<ShellRunResult>;
}
