/**
 * A `session/prompt`'s content as the text of one turn: text as it is, an embedded text resource
 * with the URI it came from, a link by its URI. Images and audio are not advertised, so a prompt
 * carrying one is refused rather than silently dropped.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";

export class UnsupportedPromptError extends Error {
	override name = "UnsupportedPromptError";
}

export function promptText(blocks: readonly ContentBlock[]): string {
	const parts: string[] = [];
	for (const block of blocks) {
		switch (block.type) {
			case "text":
				parts.push(block.text);
				break;
			case "resource":
				if ("text" in block.resource) parts.push(`<context uri="${block.resource.uri}">\n${block.resource.text}\n</context>`);
				else throw new UnsupportedPromptError(`prompt carries a binary resource (${block.resource.uri}); Warden takes text only`);
				break;
			case "resource_link":
				parts.push(`(see ${block.uri})`);
				break;
			default:
				throw new UnsupportedPromptError(`prompt carries ${block.type} content; Warden takes text and text resources only`);
		}
	}
	return parts.join("\n\n");
}
