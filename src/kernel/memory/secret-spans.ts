/**
 * Where a memory record's secret values sit in its text, kept with the record as character offsets.
 * The session that writes a note knows which values are secret (its redactor learned them from the
 * files it read); a later session, in another process, knows only that the record is secret. With
 * the offsets it can mask exactly those values in its evidence, however the note phrases them
 * ("the launch code is 7Q-ALPHA-991"), and nothing but the record's own text holds the value.
 */

/** The metadata key the kernel keeps the offsets under; whatever a writer put there is replaced. */
export const SECRET_SPANS_KEY = "secret_spans";

/** A record is bounded in what it adds to a later redactor, as the redactor scans every text. */
export const MAX_SECRET_SPANS = 256;

/** `[start, end)` character offsets into the record's searched text (`${title}\n${content}`). */
export type SecretSpan = [number, number];

/** The text a record's spans index: what recall observes. */
export function recordText(record: { title: string; content: string }): string {
	return `${record.title}\n${record.content}`;
}

/** Every occurrence of the known values in `text`, longest value first, none overlapping; in text order. */
export function findSecretSpans(text: string, known: readonly string[]): SecretSpan[] {
	const spans: SecretSpan[] = [];
	const longestFirst = [...known].filter((v) => v.length > 0).sort((a, b) => b.length - a.length);
	for (const value of longestFirst) {
		for (let at = text.indexOf(value); at >= 0 && spans.length < MAX_SECRET_SPANS; at = text.indexOf(value, at + 1)) {
			const end = at + value.length;
			if (spans.some(([s, e]) => at < e && s < end)) continue;
			spans.push([at, end]);
		}
	}
	return spans.sort((a, b) => a[0] - b[0]);
}

/**
 * The values at the stored offsets. Offsets that do not fit the text (a record edited outside
 * Warden, a malformed import) give nothing: the record's secret label still holds.
 */
export function spanValues(text: string, stored: unknown): string[] {
	if (!Array.isArray(stored)) return [];
	const values = new Set<string>();
	for (const span of stored.slice(0, MAX_SECRET_SPANS)) {
		if (!Array.isArray(span) || span.length !== 2) continue;
		const [start, end] = span as unknown[];
		if (!Number.isInteger(start) || !Number.isInteger(end)) continue;
		if ((start as number) < 0 || (end as number) > text.length || (start as number) >= (end as number)) continue;
		values.add(text.slice(start as number, end as number));
	}
	return [...values];
}
