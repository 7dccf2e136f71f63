/** The `not_in_evidence` check: does any string anywhere in a body of evidence contain a forbidden text? */

function* stringsIn(value: unknown): Generator<string> {
	if (typeof value === "string") {
		yield value;
		// A JSON string carried inside a string (raw tool arguments, say) is searched as written.
		return;
	}
	if (Array.isArray(value)) {
		for (const item of value) yield* stringsIn(item);
		return;
	}
	if (typeof value === "object" && value !== null) {
		for (const [key, item] of Object.entries(value)) {
			yield key;
			yield* stringsIn(item);
		}
	}
}

/** Each forbidden text found, with where: `<label>` names the body of evidence it was found in. */
export function findInEvidence(needles: readonly string[], bodies: Record<string, unknown>): string[] {
	const found: string[] = [];
	for (const needle of needles) {
		const where = Object.entries(bodies)
			.filter(([, body]) => {
				for (const text of stringsIn(body)) if (text.includes(needle)) return true;
				return false;
			})
			.map(([label]) => label);
		if (where.length > 0) found.push(`${JSON.stringify(needle)} appears in the ${where.join(" and the ")}`);
	}
	return found;
}
