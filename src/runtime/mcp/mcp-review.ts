/**
 * The review of a server's tools against what was approved in this workspace: each tool is
 * `approved` (its definition has the pinned digest), `new` (never approved), `changed` (approved
 * once, different now: a rug pull until a human approves it again, with the diff), or left out by
 * the config (`excluded`) or by a deny rule (`denied`). Only approved tools reach the model.
 * Every definition is also checked for hidden or instruction-like content (description-flags.ts).
 */
import { wordGlob } from "../../kernel/admission/glob-match.js";
import { toolMatches } from "../../kernel/admission/rules.js";
import type { PermissionMode, PermissionRule } from "../../kernel/admission/types.js";
import { type DefinitionFlag, definitionFlags } from "../../kernel/mcp/description-flags.js";
import { definitionDiff, definitionDigest, definitionText, pinnedDefinition } from "../../kernel/mcp/tool-definition.js";
import type { McpToolInfo } from "../../providers/mcp/mcp-types.js";
import type { McpPinRow } from "../../store/mcp-pins.js";
import { mcpToolName } from "../../tools/mcp-tool.js";
import type { McpServerConfig } from "./mcp-server-config.js";

/** `collision`: another listed tool has the same model-facing name, so neither is offered (mcp-name-collisions.ts). */
export type McpToolStatus = "approved" | "new" | "changed" | "excluded" | "denied" | "collision";

/** What a human reviews of one pinned definition: a tool's, or a resource's, template's or prompt's (mcp-entry-review.ts). */
export interface McpDefinitionReview {
	server: string;
	/** The tool's name, or the entry's pin key (`prompt:<name>`, `resource:<uri>`, `resource-template:<template>`). */
	tool: string;
	status: McpToolStatus;
	/** Why it is not offered, for `excluded` and `denied`. */
	why?: string;
	digest: string;
	/** The pinned digest, when one exists and differs. */
	approvedDigest?: string;
	/** From the approved definition to the current one, for `changed`. */
	diff?: string;
	flags: DefinitionFlag[];
	definition: Record<string, unknown>;
}

export interface McpToolReview extends McpDefinitionReview {
	/** The name the model knows it by. */
	name: string;
	info: McpToolInfo;
}

/** A definition's status against the live pin of its key: approved, new, or changed (with the diff). */
export function pinStatus(key: string, definition: Record<string, unknown>, digest: string, pin: McpPinRow | undefined): Pick<McpDefinitionReview, "status" | "approvedDigest" | "diff"> {
	if (!pin) return { status: "new" };
	if (pin.digest === digest) return { status: "approved" };
	return { status: "changed", approvedDigest: pin.digest, diff: definitionDiff(key, pin.definition, definitionText(definition)) };
}

/** What removes a tool from the model's view whatever a pin says: the config's lists and deny rules. */
export interface McpOfferPolicy {
	mode: PermissionMode;
	hostRules: readonly PermissionRule[];
	runDenyRules: readonly PermissionRule[];
}

/** Plan and read-only deny every tool that is not read-only, and no MCP tool is (annotations never loosen). */
const DENYING_MODES: ReadonlySet<PermissionMode> = new Set(["plan", "read-only"]);

export function deniedBy(name: string, policy: McpOfferPolicy): string | undefined {
	// A rule with a pattern denies some calls only; without one, every call: the tool is not offered.
	const rule = [...policy.runDenyRules, ...policy.hostRules].find((r) => r.outcome === "deny" && r.pattern === undefined && toolMatches(r, name));
	if (rule) return `denied by ${rule.text} (${rule.source})`;
	if (DENYING_MODES.has(policy.mode)) return `the ${policy.mode} mode denies tools that are not read-only`;
	return undefined;
}

export function excludedBy(tool: string, config: McpServerConfig): string | undefined {
	if (config.includeTools && !config.includeTools.some((g) => wordGlob(g, tool))) return `not in include_tools of ${config.source}`;
	const hit = config.excludeTools?.find((g) => wordGlob(g, tool));
	return hit === undefined ? undefined : `exclude_tools ${JSON.stringify(hit)} of ${config.source}`;
}

export function reviewTools(config: McpServerConfig, tools: readonly McpToolInfo[], pins: readonly McpPinRow[], policy?: McpOfferPolicy): McpToolReview[] {
	const live = new Map(pins.filter((p) => p.server === config.name && p.revoked_at === null).map((p) => [p.tool, p]));
	return tools.map((info) => {
		const definition = pinnedDefinition(info);
		const digest = definitionDigest(definition);
		const name = mcpToolName(config.name, info.name);
		const base = { server: config.name, tool: info.name, name, digest, flags: definitionFlags(definition), definition, info };
		const excluded = excludedBy(info.name, config);
		if (excluded) return { ...base, status: "excluded", why: excluded };
		const denied = policy && deniedBy(name, policy);
		if (denied) return { ...base, status: "denied", why: denied };
		return { ...base, ...pinStatus(info.name, definition, digest, live.get(info.name)) };
	});
}
