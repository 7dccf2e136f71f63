/** Squeezes text from a server or parser into one short line fit for a user-facing error. */
export function oneLine(text: string, maxLength = 240): string {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length > maxLength ? `${flat.slice(0, maxLength - 1)}…` : flat;
}
