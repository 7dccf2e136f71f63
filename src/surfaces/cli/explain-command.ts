/**
 * `warden explain <call-or-effect-id>`: one call's operation tree from the recorded evidence. Exit 0
 * whenever the call is found, complete or not (the verdict is in the output); 2 for a usage error
 * or an id that names no single call.
 */
import type { Command } from "commander";
import type { CallExplanation, ModelCallExplanation } from "../../runtime/explain.js";
import { EXIT, UsageError } from "./cli-error.js";

interface ExplainFlags {
	session?: string;
	json?: boolean;
	stateDir?: string;
}

export function registerExplainCommand(program: Command, out: (text: string) => void): void {
	program
		.command("explain")
		.description("a tool call's operation tree: the model call that proposed it, what admitted it, what it changed, and which evidence is missing")
		.argument("<id>", "a call id (call_1_2_1) or the seq of one of its audit records, such as an effect (42 or #42); a model call (model_1_2, compaction_1) shows its context manifest")
		.option("--session <id>", "the session, when several hold the call id")
		.option("--state-dir <dir>", "state directory (default $WARDEN_HOME)")
		.option("--json", "the tree as one JSON object")
		.action(async (id: string, flags: ExplainFlags) => {
			// Loaded only when this command runs, so the CLI starts without the runtime.
			const [{ Runtime }, { ExplainError }, { shownExplanation }, { shownModelCall }] = await Promise.all([
				import("../../runtime/runtime.js"),
				import("../../runtime/explain.js"),
				import("./explain-render.js"),
				import("./explain-model-render.js"),
			]);
			// Explaining only reads: it must work while another process is running sessions on the same state dir.
			const runtime = await Runtime.open({ ...(flags.stateDir ? { stateDir: flags.stateDir } : {}), readOnly: true });
			let tree: CallExplanation | ModelCallExplanation;
			try {
				const options = flags.session === undefined ? {} : { session: flags.session };
				tree = (await runtime.explainModel(id, options)) ?? (await runtime.explain(id, options));
			} catch (err) {
				if (err instanceof ExplainError) throw new UsageError(err.message);
				throw err;
			} finally {
				await runtime.close();
			}
			out(flags.json ? `${JSON.stringify(tree)}\n` : "kind" in tree ? shownModelCall(tree) : shownExplanation(tree));
			process.exitCode = EXIT.ok;
		});
}

