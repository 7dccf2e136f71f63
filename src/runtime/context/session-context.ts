/** What opening or resuming a session sets up for its context: the keeper, and the project instructions message. */
import { sha256Hex } from "../../kernel/evidence/sha256.js";
import type { Label } from "../../kernel/flow/label.js";
import { type FileLabelReader, recordedFileLabel } from "../recorded-file-label.js";
import type { Message, ModelProvider } from "../../models/provider.js";
import { ContextKeeper } from "./context-keeper.js";
import { type ContextOptions, contextSettings } from "./context-settings.js";
import { type ProjectInstructions, readProjectInstructions, wardenConfigHome } from "./project-instructions.js";
import { latestTodo, type TodoState } from "./todo-state.js";
import type { SessionSkills } from "../skills/session-skills.js";
import { SKILLS_PIN } from "../skills/session-skill-setup.js";

export const SYSTEM_PROMPT_PIN = "the system prompt: never summarised";
export const INSTRUCTIONS_PIN = "project instructions: never summarised";

/** How a host chooses where project instructions come from; `false` reads none. */
export type InstructionsOption =
	| false
	| {
			/** Whether the user trusts the project (the CLI passes the config's `trusted_projects` answer); default false. */
			trusted?: boolean;
			/** Where the user's global AGENTS.md lives; default `<config home>/warden`. */
			configHome?: string;
	  };

/**
 * `fileLabels`: the store of labels the flow plane recorded on written content, keyed by the
 * workspace's real path (`workspace`) and the workspace-relative path; a file outside the
 * workspace has none there.
 */
export async function sessionInstructions(option: InstructionsOption | undefined, workspace: string, env: NodeJS.ProcessEnv, fileLabels?: FileLabelReader): Promise<ProjectInstructions | undefined> {
	if (option === false) return undefined;
	const recordedLabel = fileLabels ? (path: string, text: string) => recordedFileLabel(fileLabels, workspace, path, sha256Hex(text)) : undefined;
	return readProjectInstructions({ workspace, trusted: option?.trusted ?? false, configHome: option?.configHome ?? wardenConfigHome(env), ...(recordedLabel ? { recordedLabel } : {}) });
}

/** `events(after)`: the session's events past its first `after`. */
export function sessionKeeper(model: ModelProvider, options: ContextOptions | undefined, events: (after: number) => Promise<readonly { kind: string; payload: unknown }[]>, instructions?: ProjectInstructions, compactionsBefore = 0, skills?: Pick<SessionSkills, "carried">): ContextKeeper {
	return new ContextKeeper({
		...(skills ? { carrySkills: (callIds: readonly string[]) => skills.carried(callIds) } : {}),
		compactionsBefore,
		settings: contextSettings(model, options),
		model,
		todo: todoReader(events),
		...(instructions ? { instructions: instructions.parts, instructionsLabel: instructions.label } : {}),
	});
}

/**
 * The latest todo list, reading only the events since the last look: a compaction late in a long
 * session would otherwise parse every event the session ever had.
 */
export function todoReader(events: (after: number) => Promise<readonly { kind: string; payload: unknown }[]>): () => Promise<TodoState | undefined> {
	let seen = 0;
	let latest: TodoState | undefined;
	// One look at a time: two overlapping looks would both count the same fresh events.
	let queue: Promise<unknown> = Promise.resolve();
	const look = async (): Promise<TodoState | undefined> => {
		const fresh = await events(seen);
		const found = latestTodo(fresh);
		if (found) latest = { ...found, event: seen + found.event };
		seen += fresh.length;
		return latest;
	};
	return () => {
		const next = queue.then(look);
		queue = next.catch(() => undefined);
		return next;
	};
}

/** Notes a conversation already stored (a resumed one, or a new one's first messages) in the order the store holds it. */
export function noteHistory(keeper: ContextKeeper, history: readonly Message[], labels: readonly Label[], instructionsAt?: number, skillsAt?: number): void {
	for (const [i, message] of history.entries()) keeper.note(message, labels[i]!, i === 0 ? SYSTEM_PROMPT_PIN : i === instructionsAt ? INSTRUCTIONS_PIN : i === skillsAt ? SKILLS_PIN : undefined);
}

/** A resumed session's project instructions message: the system message the opening run put second. */
export function storedInstructionsAt(history: readonly Message[]): number | undefined {
	const second = history[1];
	return second?.role === "system" && second.content.startsWith("Project instructions (AGENTS.md)") ? 1 : undefined;
}
