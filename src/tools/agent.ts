/**
 * agent: delegates a bounded task to a child session with a subset of this session's tools and
 * authority. The runtime decides what the child may hold; this tool only forwards the request.
 */
import type { SubagentRequest } from "./subagent-types.js";
import { type ToolDefinition, ToolError } from "./tool.js";

/** A type literal, not the interface, so it fits a tool's Record-shaped arguments. */
export type AgentArgs = { [K in keyof SubagentRequest]: SubagentRequest[K] };

export const agentTool: ToolDefinition<AgentArgs> = {
	name: "agent",
	description:
		"Delegate a bounded task to a sub-agent: a child session in the same workspace with a subset of your tools and never more authority than you. Foreground (default) returns its final answer; background returns its id at once.",
	inputSchema: {
		$schema: "https://json-schema.org/draft/2020-12/schema",
		type: "object",
		properties: {
			task: { type: "string", minLength: 1, description: "What the sub-agent should do, self-contained." },
			steps: { type: "array", description: "The sub-agent's own plan steps, for a scripted model (docs/scripted-plans.md)." },
			tools: { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true, description: "Tool names it may use; default all of yours except agent." },
			mode: { enum: ["read-only", "plan", "workspace-write", "full-access"], description: "Its permission mode; never more permissive than yours. Default yours." },
			background: { type: "boolean", description: "Run concurrently and return its id at once." },
		},
		required: ["task"],
		additionalProperties: false,
	},
	// Its own effects are nothing: every effect of the child is decided and admitted in the child.
	readOnly: true,
	requiresConfirmation: false,
	ruleSubject: () => undefined,
	async execute(args, ctx) {
		if (!ctx.subagents) throw new ToolError("sub-agents are not available in this session");
		const outcome = await ctx.subagents.spawn(args);
		if (outcome.status === "running") return { output: `sub-agent ${outcome.child} started in the background; its result is recorded in its session` };
		const head = `sub-agent ${outcome.child} ${outcome.status}`;
		return { output: outcome.text === "" ? head : `${head}:\n${outcome.text}`, isError: outcome.status !== "completed" };
	},
};
