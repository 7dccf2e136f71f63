/**
 * ask_user: a question from the model to the person it works for, through the `human:user`
 * primitive. In automation nobody is there, and the tool says so rather than inventing an answer.
 */
import { withKernelFailures } from "./kernel-failures.js";
import { type ToolDefinition, ToolError } from "./tool.js";

export type AskUserArgs = { question: string };

export const NOBODY_THERE = "Nobody is at a terminal to answer (this run is automated): decide with what you know, or say in your answer what you need.";

export const askUserTool: ToolDefinition<AskUserArgs> = {
	name: "ask_user",
	description: "Ask the person you work for one short question when you cannot go on without their answer (a choice, a missing fact). Returns their answer.",
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: { question: { type: "string", minLength: 1, maxLength: 2000 } },
		required: ["question"],
		additionalProperties: false,
	},
	readOnly: true,
	requiresConfirmation: false,
	ruleSubject: () => undefined,
	execute: (args, ctx) =>
		withKernelFailures(async () => {
			if (!ctx.human) throw new ToolError("nobody can be asked from here");
			const answer = await ctx.human.ask(args.question, ctx.signal);
			if (answer === undefined) return { output: NOBODY_THERE };
			if (answer.trim() === "") return { output: "The person gave no answer." };
			return { output: `The person answered: ${answer}` };
		}),
};
