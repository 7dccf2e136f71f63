/**
 * What a tool definition may hide from the person approving it: instructions aimed at the model,
 * characters a reader cannot see, requests to read files or send data out. Each row is one kind of
 * content; every string of the definition (name, title, description, the input schema's strings,
 * annotations) is checked against every row. A flag does not block a tool by itself: it is shown
 * in the review and in `warden mcp list`, where a human decides.
 */

export interface FlagRule {
	id: string;
	/** What the review says, after the field it was found in. */
	says: string;
	pattern: RegExp;
}

export const DESCRIPTION_FLAG_RULES: readonly FlagRule[] = [
	{ id: "hidden-characters", says: "holds zero-width or bidirectional control characters a reader cannot see", pattern: /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/u },
	{ id: "tag-characters", says: "holds Unicode tag characters (invisible text)", pattern: /[\u{E0000}-\u{E007F}]/u },
	{ id: "override", says: "tells the model to ignore or override its instructions", pattern: /\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:instructions?|rules|prompt|guidelines)\b|\bsystem (?:override|prompt)\b/i },
	{ id: "secrecy", says: "tells the model to hide something from the user", pattern: /\b(?:do not|don't|never)\s+(?:tell|inform|mention|show|reveal)[^.\n]{0,20}\b(?:user|human|anyone)\b|\bwithout (?:telling|informing|asking) the user\b/i },
	{ id: "precondition", says: "tells the model what to do before or instead of calling the tool", pattern: /\bbefore (?:calling|using|invoking) (?:this|the|any) tool\b|\b(?:you|the assistant|the model) (?:must|should|have to|need to) (?:first )?(?:read|call|send|include|pass|run)\b/i },
	{ id: "markup", says: "holds markup addressed to the model (<IMPORTANT>, <system>, [INST])", pattern: /<\s*\/?\s*(?:important|system|instructions?|admin)\s*>|\[\/?INST\]/i },
	{ id: "reads-files", says: "names credentials or private files to read (~/.ssh, .env, keys, /etc/passwd)", pattern: /(?:~|\$HOME)\/\.?\w|\/etc\/(?:passwd|shadow)\b|\bid_(?:rsa|ed25519|ecdsa)\b|(?:^|[\s"'`(])\.(?:env|ssh|aws|netrc|npmrc)\b|\bprivate key\b/i },
	{ id: "sends-data", says: "asks for data to be sent somewhere (upload, exfiltrate, post to a URL)", pattern: /\b(?:exfiltrate|upload|forward)\b|\bsend (?:it|them|this|that|everything)\b|\b(?:send|post|pass|include|attach)\b[^.\n]{0,60}\b(?:to https?:\/\/|contents?|secret|key|token|password|credentials?)\b/i },
];

export interface DefinitionFlag {
	rule: string;
	/** `description`, `inputSchema.properties.text.description`, … */
	field: string;
	says: string;
}

function strings(value: unknown, field: string, out: [string, string][]): void {
	if (typeof value === "string") out.push([field, value]);
	else if (Array.isArray(value)) {
		for (const [i, v] of value.entries()) strings(v, `${field}[${i}]`, out);
	}
	else if (typeof value === "object" && value !== null) {
		for (const [key, v] of Object.entries(value)) {
			// Property names are text the model reads too.
			out.push([`${field}.${key} (key)`, key]);
			strings(v, `${field}.${key}`, out);
		}
	}
}

/** Every flag of every string in the definition, in field order, one per (rule, field). */
export function definitionFlags(definition: Record<string, unknown>): DefinitionFlag[] {
	const texts: [string, string][] = [];
	for (const [key, value] of Object.entries(definition)) strings(value, key, texts);
	const flags: DefinitionFlag[] = [];
	for (const [field, text] of texts) {
		for (const rule of DESCRIPTION_FLAG_RULES) if (rule.pattern.test(text)) flags.push({ rule: rule.id, field, says: rule.says });
	}
	return flags;
}
