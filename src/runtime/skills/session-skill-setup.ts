/** What opening or resuming a session sets up for skills: discovery, the catalogue message, and where a stored one sits. */
import type { EvidenceRecorder } from "../../kernel/evidence/evidence-recorder.js";
import { describeSources, type Label } from "../../kernel/flow/label.js";
import type { Message } from "../../models/provider.js";
import { SessionSkills } from "./session-skills.js";
import { discoverSkills, userSkillsDir } from "./skill-discovery.js";
import { CATALOGUE_HEADER, catalogueLabel, catalogueText } from "./skill-projection.js";
import type { Skill, SkillCatalogue } from "./skill-types.js";

export const SKILLS_PIN = "the skill catalogue: never summarised";

/** How a host chooses where skills come from; `false` offers none. */
export type SkillsOption =
	| false
	| {
			/** Whether the user trusts the project (the CLI passes the config's `trusted_projects` answer); default false. */
			trusted?: boolean;
			/** The user's skills directory; default `<config home>/warden/skills`. */
			userDir?: string;
	  };

/**
 * `recordedLabel`: the label the flow plane recorded on a workspace SKILL.md's content when it was
 * written, if any. A skill written from untrusted content is offered as untrusted whatever the
 * project's trust; one recorded secret is left out of the catalogue (a warning says so).
 */
export async function loadSessionSkills(
	option: SkillsOption | undefined,
	workspace: string,
	env: NodeJS.ProcessEnv,
	recorder: EvidenceRecorder,
	recordedLabel?: (file: string, sha256: string) => Promise<Label | undefined>,
): Promise<SessionSkills | undefined> {
	if (option === false) return undefined;
	const found = await discoverSkills({ workspace, trusted: option?.trusted ?? false, userDir: option?.userDir ?? userSkillsDir(env) });
	const catalogue = recordedLabel ? await withRecordedLabels(found, recordedLabel) : found;
	return new SessionSkills(catalogue, workspace, async (activated) => {
		await recorder.emit("skill.activated", activated);
		const { call_id, ...data } = activated;
		await recorder.audit("skill.activated", data, call_id);
	});
}

async function withRecordedLabels(catalogue: SkillCatalogue, recordedLabel: (file: string, sha256: string) => Promise<Label | undefined>): Promise<SkillCatalogue> {
	const skills: Skill[] = [];
	const warnings = [...catalogue.warnings];
	for (const skill of catalogue.skills) {
		const recorded = skill.source === "workspace" ? await recordedLabel(skill.file, skill.sha256) : undefined;
		if (recorded?.sensitivity === "secret") {
			warnings.push({ file: skill.file, field: "SKILL.md", message: `its content is labelled secret${describeSources(recorded)}: left out of the catalogue` });
			continue;
		}
		skills.push(recorded?.integrity === "untrusted" ? { ...skill, trusted: false } : skill);
	}
	return { skills, warnings };
}

/** The catalogue as the session's system message, with its label; undefined when no skill was found. */
export function catalogueMessage(skills: SessionSkills | undefined): { message: Message; label: Label } | undefined {
	const text = skills && catalogueText(skills.catalogue.skills);
	if (!skills || text === undefined) return undefined;
	return { message: { role: "system", content: text }, label: catalogueLabel(skills.catalogue.skills) };
}

/** What the session's start record says of its skills: each one offered, and each one left out or shadowed. */
export function skillsAudit(skills: SessionSkills): Record<string, unknown> {
	const { catalogue } = skills;
	return {
		offered: catalogue.skills.map((s) => ({ name: s.name, source: s.source, file: s.file, sha256: s.sha256, trusted: s.trusted })),
		...(catalogue.warnings.length ? { warnings: catalogue.warnings } : {}),
	};
}

/** A resumed session's catalogue message: the system message among the opening ones that starts with the header. */
export function storedCatalogueAt(history: readonly Message[]): number | undefined {
	for (let i = 1; i < Math.min(history.length, 3); i++) {
		const m = history[i]!;
		if (m.role === "system" && m.content.startsWith(CATALOGUE_HEADER)) return i;
	}
	return undefined;
}
