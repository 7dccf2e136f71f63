/**
 * A project's task ceiling meets the user's. A ceiling only ever narrows, so the two are
 * intersected; where the intersection of effect lists cannot be written as one list, the project's
 * list is used only when it lies provably within the user's (patternContains is sound, not
 * complete), and otherwise the user's stands and the project's is reported as ignored.
 */
import type { EffectScope, TaskCeilingSpec } from "../kernel/authority/task-ceiling.js";
import { tighterBudget } from "../kernel/authority/task-ceiling.js";
import { patternContains } from "../kernel/authority/resource-pattern.js";

export interface CeilingMerge {
	ceiling: TaskCeilingSpec;
	/** Items of the project's ceiling that were not used, each with why. */
	ignored: { item: string; why: string }[];
}

/** Every access `inner` admits, `outer` admits too. */
export function scopesWithin(inner: readonly EffectScope[], outer: readonly EffectScope[]): boolean {
	return inner.every((s) => outer.some((o) => s.rights.every((r) => o.rights.includes(r)) && patternContains(o.resource, s.resource)));
}

export function mergeCeilings(user: TaskCeilingSpec | undefined, project: TaskCeilingSpec): CeilingMerge {
	if (!user) return { ceiling: project, ignored: [] };
	const ignored: CeilingMerge["ignored"] = [];
	const merged: TaskCeilingSpec = { ...user };

	const u = user.effects ?? null;
	const p = project.effects ?? null;
	if (p !== null) {
		if (u === null || scopesWithin(p, u)) merged.effects = p;
		else if (!scopesWithin(u, p)) ignored.push({ item: "ceiling.effects", why: "they are not provably within the user's ceiling effects, which stay in force" });
	}
	if (project.exclude?.length) merged.exclude = [...(user.exclude ?? []), ...project.exclude];
	if (project.sinks !== undefined) {
		if (user.sinks === undefined) merged.sinks = project.sinks;
		else {
			const both = user.sinks.filter((s) => project.sinks!.includes(s));
			if (both.length > 0) merged.sinks = both;
			else ignored.push({ item: "ceiling.sinks", why: "none of them is among the user's ceiling sinks, which stay in force" });
		}
	}
	if (project.budget) merged.budget = tighterBudget(user.budget, project.budget);
	if (project.approval === "deny") merged.approval = "deny";
	return { ceiling: merged, ignored };
}
