/**
 * One session's skills: the catalogue it was offered, the skills activated so far (by which call,
 * with which label), and what compaction must carry over. Activating records `skill.activated`
 * and changes only what the model sees; the narrowing of `allowed-tools` is skill-narrowing.ts's.
 */
import { relative, sep } from "node:path";
import type { CallFlow } from "../../kernel/flow/flow-types.js";
import { join, type Label } from "../../kernel/flow/label.js";
import { skillFiles } from "../../providers/skill-folders.js";
import { type SkillActivator, ToolError } from "../../tools/tool.js";
import { activationText, skillLabel } from "./skill-projection.js";
import type { Skill, SkillCatalogue } from "./skill-types.js";

export interface SkillActivation {
	skill: Skill;
	/** The activate_skill call that loaded it. */
	callId: string;
	text: string;
	label: Label;
}

/** What `skill.activated` records (the event's payload). */
export interface SkillActivatedRecord {
	call_id: string;
	name: string;
	source: Skill["source"];
	file: string;
	sha256: string;
	trusted: boolean;
	files: number;
	allowed_tools?: string[];
}

export class SessionSkills {
	private readonly active = new Map<string, SkillActivation>();
	/** Skills whose activation was admitted but has not run yet: the calls decided after it in the same step are narrowed too. */
	private readonly admitted = new Set<string>();

	constructor(
		readonly catalogue: SkillCatalogue,
		private readonly workspace: string,
		private readonly record: (activated: SkillActivatedRecord) => Promise<void>,
	) {}

	get offered(): boolean {
		return this.catalogue.skills.length > 0;
	}

	/** Active skills in the order they were activated. */
	activeSkills(): SkillActivation[] {
		return [...this.active.values()];
	}

	/** An activate_skill call for `name` was admitted: until it runs, its allowed-tools already narrows. */
	noteAdmitted(name: string): void {
		if (this.catalogue.skills.some((s) => s.name === name) && !this.active.has(name)) this.admitted.add(name);
	}

	/** The skills whose allowed-tools applies now: the active ones, and those whose activation is admitted. */
	narrowing(): Skill[] {
		const admitted = [...this.admitted].map((name) => this.catalogue.skills.find((s) => s.name === name)!);
		return [...this.activeSkills().map((a) => a.skill), ...admitted];
	}

	/** The activator one call of activate_skill gets: what it loads joins that call's result label. */
	forCall(callId: string, flow: CallFlow): SkillActivator {
		return { activate: (name) => this.activate(name, callId, flow) };
	}

	private async activate(name: string, callId: string, flow: CallFlow): Promise<string> {
		const skill = this.catalogue.skills.find((s) => s.name === name);
		if (!skill) throw new ToolError(`no skill named ${JSON.stringify(name)}; the catalogue has: ${this.catalogue.skills.map((s) => s.name).join(", ") || "none"}`);
		const known = this.active.get(name);
		if (known) {
			flow.observe(known.label);
			return `${known.text}\n\n(already active since ${known.callId})`;
		}
		this.admitted.delete(name);
		const files = await skillFiles(skill.dir);
		const text = activationText(skill, files, this.workspace);
		// A workspace SKILL.md also carries whatever this session's writes recorded on its content.
		const rel = relative(this.workspace, skill.file);
		const inside = rel !== "" && !rel.startsWith("..") && !rel.startsWith(sep);
		const carried = join(skillLabel(skill), ...(inside ? [await flow.fileLabel(rel.split(sep).join("/"), skill.sha256)] : []));
		flow.observe(carried);
		this.active.set(name, { skill, callId, text, label: carried });
		await this.record({
			call_id: callId,
			name,
			source: skill.source,
			file: skill.file,
			sha256: skill.sha256,
			trusted: skill.trusted,
			files: files.files.length,
			...(skill.allowedTools ? { allowed_tools: skill.allowedTools.entries } : {}),
		});
		return text;
	}

	/**
	 * The active skills whose activation a compaction is about to summarise away (their call is among
	 * `callIds`): their instructions go on in the summary verbatim, with their labels.
	 */
	carried(callIds: readonly string[]): { text: string; label: Label } | undefined {
		const covered = new Set(callIds);
		const kept = this.activeSkills().filter((a) => covered.has(a.callId));
		if (kept.length === 0) return undefined;
		const text = ["Active skills (activated earlier in the session, kept verbatim through compaction):", ...kept.map((a) => `--- ${a.callId} ---\n${a.text}`)].join("\n\n");
		return { text, label: join(...kept.map((a) => a.label)) };
	}

	/** A resumed session's activations, from its `skill.activated` events: the skill as found again, when its SKILL.md is unchanged. */
	restore(events: readonly { kind: string; payload: unknown }[]): string[] {
		const dropped: string[] = [];
		for (const event of events) {
			if (event.kind !== "skill.activated") continue;
			const p = event.payload as Partial<SkillActivatedRecord>;
			const skill = this.catalogue.skills.find((s) => s.name === p.name);
			if (!skill || skill.sha256 !== p.sha256 || typeof p.call_id !== "string") {
				if (typeof p.name === "string") dropped.push(p.name);
				continue;
			}
			if (this.active.has(skill.name)) continue;
			const label = skillLabel(skill);
			this.active.set(skill.name, { skill, callId: p.call_id, text: activationText(skill, { files: [], truncated: false }, this.workspace), label });
		}
		return dropped;
	}
}
