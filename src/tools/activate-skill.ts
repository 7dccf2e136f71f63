/**
 * activate_skill: loads one skill of the session's catalogue (its SKILL.md instructions and the list
 * of its other files). It reads only what the host already discovered and reaches nothing else: the
 * skill's files are read afterwards with the governed file tools, its scripts run through shell.
 */
import { type ToolDefinition, ToolError } from "./tool.js";

export type ActivateSkillArgs = { name: string };

export const activateSkillTool: ToolDefinition<ActivateSkillArgs> = {
	name: "activate_skill",
	description:
		"Activate one of the skills listed in the skill catalogue by its name: returns its instructions and the paths of its other files. It grants no permission; the skill stays active for the rest of the session.",
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: {
			name: { type: "string", minLength: 1, maxLength: 64, description: "The skill's name, as the catalogue lists it." },
		},
		required: ["name"],
		additionalProperties: false,
	},
	readOnly: true,
	requiresConfirmation: false,
	// Rules can name skills: `activate_skill(pdf-*)`.
	ruleSubject: (args) => ({ kind: "pattern", value: args.name }),
	async execute(args, ctx) {
		if (!ctx.skills) throw new ToolError("this session offers no skills");
		return { output: await ctx.skills.activate(args.name) };
	},
};
