/** Bounds a tool's text result to what the model is given, with a marker it cannot miss. */

export function truncateText(text: string, maxChars: number): string {
	if (text.length <= maxChars) return text;
	const marker = (shown: number) => `\n[truncated: showing the first ${shown} of ${text.length} characters]`;
	// The marker's own length depends on the count it prints; measure it with the widest count.
	const keep = Math.max(0, maxChars - marker(text.length).length);
	return text.slice(0, keep) + marker(keep);
}
