/**
 * The baselines' memory tools, as a naive agent keeps memory: every note verbatim in a list that
 * outlives the session, searched by words, handed back as plain text with nothing to say where a
 * note came from or what it may be used for.
 */
import type { PlainResult } from "./plain-tools.js";

export interface PlainNote {
	title: string;
	content: string;
	tags: string[];
}

function words(text: string): string[] {
	return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function plainMemoryWrite(args: Record<string, unknown>, notes: PlainNote[]): PlainResult {
	const tags = Array.isArray(args.tags) ? args.tags.map(String) : [];
	notes.push({ title: String(args.title), content: String(args.content), tags });
	return { output: `saved memory ${notes.length}: ${String(args.title)}`, isError: false };
}

export function plainMemorySearch(args: Record<string, unknown>, notes: readonly PlainNote[]): PlainResult {
	const wanted = new Set(words(String(args.query)));
	const hits = notes.filter((n) => words(`${n.title} ${n.tags.join(" ")} ${n.content}`).some((w) => wanted.has(w)));
	if (hits.length === 0) return { output: "no memory matches", isError: false };
	return { output: hits.map((n) => `${n.title}\n${n.content}`).join("\n\n"), isError: false };
}
