/**
 * Two listed tools that the model would know by one name (mcp-tool-name.ts makes that impossible
 * between servers, so it is one server listing a name twice, or a hash collision): neither is
 * offered — which one a call meant would be a guess — and each says why, naming both, as a
 * configuration problem of that server. Every other tool is untouched, so a collision never stops a
 * session or an unrelated tool. Only tools that could be offered take part: an excluded or denied
 * one is never registered.
 */
import type { McpToolReview } from "./mcp-review.js";

const CONTENDERS: ReadonlySet<McpToolReview["status"]> = new Set(["approved", "new", "changed", "collision"]);

/** The servers' reviews, with every tool that shares its model-facing name marked `collision`. */
export function markCollisions(servers: readonly { server: string; source: string; tools: McpToolReview[] }[]): void {
	const byName = new Map<string, { source: string; review: McpToolReview }[]>();
	for (const s of servers) {
		for (const review of s.tools) {
			if (!CONTENDERS.has(review.status)) continue;
			const same = byName.get(review.name) ?? [];
			same.push({ source: s.source, review });
			byName.set(review.name, same);
		}
	}
	for (const [name, same] of byName) {
		if (same.length < 2) continue;
		const who = same.map(({ source, review }) => `tool ${JSON.stringify(review.tool)} of server ${review.server} (${source})`).join(" and ");
		for (const { review } of same) {
			review.status = "collision";
			review.why = `configuration error: ${name} would name both ${who}; neither is offered`;
		}
	}
}
