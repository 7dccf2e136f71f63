/**
 * What a call of the planning tools is handed: the person behind `human:user` (the host's askUser
 * callback, admitted like every human primitive; without one, nobody is there) and the recorder of
 * the todo list's `todo.updated` event.
 */
import type { CallAuthority } from "../kernel/authority/authority.js";
import type { TodoItem } from "../kernel/evidence/event-types.js";
import { createHumanPrimitives } from "../kernel/kernel-human.js";
import type { ToolContext } from "../tools/tool.js";
import type { TurnDeps } from "./turn-loop.js";

export function planningContext(deps: Pick<TurnDeps, "askUser" | "recorder">, authority: CallAuthority): Pick<ToolContext, "human" | "recordTodos"> {
	const answer = deps.askUser ?? (async () => undefined);
	return {
		human: createHumanPrimitives<string, string | undefined>({ channel: "user", answer, authority }),
		recordTodos: async (items: TodoItem[]) => {
			await deps.recorder.emit("todo.updated", { items });
		},
	};
}
