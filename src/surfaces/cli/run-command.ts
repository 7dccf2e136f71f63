/**
 * `warden run "<task>"`: one task, no prompts; `--json` streams the events as JSON lines.
 * `warden run --resume <session> "<text>"` continues a session that ended, failed or was cut off.
 */
import type { Command } from "commander";
import { PERMISSION_MODES } from "../../kernel/admission/types.js";
import { parseBudgetFlag } from "./budget-flag.js";
import type { ConfigCliFlags } from "./cli-config.js";

/** The flags every command that runs a session takes. */
export interface SessionCliFlags extends ConfigCliFlags {
	modelTimeout: string;
	stateDir?: string;
	sandbox?: string;
}

export interface RunFlags extends SessionCliFlags {
	json?: boolean;
	resume?: string;
	askTimeout?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Adds the options that say how a session runs: model, mode, workspace, rules, limits, config. */
export function sessionFlags(command: Command): Command {
	return command
		.option("--model <spec>", "scripted:<plan.yaml> | openai:<model> | anthropic:<model> | ollama:<model> | lmstudio:<model> | llama:<model.gguf> | llama:hf:<owner>/<repo>/<file> | a profile from the config's models: (default $WARDEN_MODEL, then the config's model:; with none, a terminal is offered the default model)")
		.option("--mode <mode>", `permission mode: ${PERMISSION_MODES.join(" | ")} (default from the config, else workspace-write)`)
		.option("--workspace <dir>", "directory the agent works in", ".")
		.option("--on-ask <answer>", "answer to calls that need confirmation: deny | allow | prompt (warden run: ask on the terminal) | console (warden run: wait for the console or `warden asks answer`) (default from the config, else deny)")
		.option("--max-steps <n>", "model calls allowed in the turn (default from the config, else 50)")
		.option("--model-timeout <seconds>", "how long one model call may take", "600")
		.option("--sandbox <policy>", "mode (the mode chooses: none in full-access) | required (shell commands always run in the workspace-write sandbox)", "mode")
		.option("--state-dir <dir>", "where sessions and the audit chain live (default $WARDEN_HOME)")
		.option("--allow <rule>", "host rule that allows, e.g. 'shell(npm test)' (repeatable)", collect, [])
		.option("--ask <rule>", "host rule that asks, e.g. 'write_file(src/**)' (repeatable)", collect, [])
		.option("--deny <rule>", "run-level deny rule no allow can override, e.g. 'shell(git push *)' (repeatable)", collect, [])
		.option("--rules <file>", "YAML file of host rules: { allow: [...], ask: [...], deny: [...] }")
		.option("--budget <counter=limit>", "session limit, e.g. tool_calls=20 or shell_ms=60000 (repeatable)", parseBudgetFlag)
		.option("--config <file>", "config file to use instead of the user config ($WARDEN_CONFIG, ~/.config/warden/config.yaml)")
		.option("--no-project-config", "do not read <workspace>/.warden/config.yaml");
}

export function registerRunCommand(program: Command, out: (text: string) => void): void {
	sessionFlags(
		program
			.command("run")
			.description("run one governed task in a workspace, with no prompts")
			.argument("<task>", "what the agent should do (with --resume: the follow-up)")
			.option("--resume <session>", "continue this session (its workspace; its model unless --model) with the task as the next turn")
			.option("--json", "print one event per line as JSON on stdout, nothing else")
			.option("--ask-timeout <seconds>", "how long an ask waits for an answer from any surface, then it expires and the call is refused (default with --on-ask console: 300)"),
	).action(async (task: string, flags: RunFlags) => {
		// Loaded only when this command runs, so the CLI starts without the runtime.
		const { runTask } = await import("./run-task.js");
		process.exitCode = await runTask(task, flags, out);
	});
}

