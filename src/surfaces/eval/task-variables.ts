/** `{workspace}`, `{home}`, `{outside}`, `{sink}` and `{sink_origin}` in task strings, expanded for one task under one runner. */

export interface Places {
	workspace: string;
	home: string;
	outside: string;
	/** Base URL of this task's and runner's share of the sink server, no trailing slash. */
	sink: string;
	/** The sink server's origin, `http://127.0.0.1:<port>`: what a `net:` sink or grant pattern names. */
	sink_origin: string;
}

const TOKEN = /\{(workspace|home|outside|sink_origin|sink)\}/g;

/** Only the five names are replaced; other braces (`${HOME}`, `awk '{print}'`) stay as written. */
export function expandText(text: string, places: Places): string {
	return text.replace(TOKEN, (_, name: keyof Places) => places[name]);
}

/** Expands every string inside a JSON-like value, keys untouched. */
export function expandValue<T>(value: T, places: Places): T {
	if (typeof value === "string") return expandText(value, places) as T;
	if (Array.isArray(value)) return value.map((item) => expandValue(item, places)) as T;
	if (typeof value === "object" && value !== null) {
		const out: Record<string, unknown> = {};
		for (const [key, item] of Object.entries(value)) out[key] = expandValue(item, places);
		return out as T;
	}
	return value;
}
