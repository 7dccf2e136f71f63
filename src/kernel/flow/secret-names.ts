/**
 * Whether a field or variable name says its value is a secret (`password`, `api_key`,
 * `accessToken`, `AWS_SECRET_ACCESS_KEY`), judged word by word so that `max_tokens` or
 * `keyboard` are not caught.
 */

/** Words that mark a secret on their own. */
const SECRET_WORDS = new Set([
	"password",
	"passwd",
	"passphrase",
	"secret",
	"token",
	"apikey",
	"credential",
	"credentials",
]);

/** Words that mark a secret when followed by "key": api_key, private-key, accessKey … */
const KEY_QUALIFIERS = new Set([
	"api",
	"access",
	"private",
	"secret",
	"auth",
	"client",
	"signing",
	"encryption",
	"master",
]);

/** Field names that carry a secret in structured data (headers) but would misfire in free text. */
const STRUCTURED_WORDS = new Set(["authorization", "cookie"]);

/** Values that are clearly not secrets even under a secret-sounding name (literals, type names). */
const TRIVIAL_VALUE =
	/^(?:|\d+(?:\.\d+)?|true|false|null|nil|none|undefined|yes|no|string|number|boolean|bool|str|int|bytes|any|unknown|object)$/i;

/** A reference to a variable (`$TOKEN`, `${API_KEY}`) names a secret without containing it. */
const VARIABLE_REFERENCE = /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/;

export function nameWords(name: string): string[] {
	return name
		.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter((word) => word !== "");
}

/** For names in free text: `password=…`, `export API_KEY=…`, `"client_secret": "…"`. */
export function isSecretName(name: string): boolean {
	return secretWords(nameWords(name));
}

function secretWords(words: readonly string[]): boolean {
	return words.some((word, i) => SECRET_WORDS.has(word) || (word === "key" && i > 0 && KEY_QUALIFIERS.has(words[i - 1]!)));
}

/**
 * Answers by field name: the redactor asks for every key of every event, audit record and message,
 * and the keys are the same few dozen each time. Bounded, so keys a model made up cannot grow it
 * without end; the answer depends on the name alone, so a remembered one is the one it would compute.
 */
const FIELD_ANSWERS = new Map<string, boolean>();
const FIELD_ANSWERS_MAX = 4096;
/** Longer keys are judged afresh: remembering them would let a few long names fill the bound's memory. */
const FIELD_NAME_REMEMBERED_CHARS = 128;

/** For keys of structured data, which may also name headers such as Authorization and Cookie. */
export function isSecretField(name: string): boolean {
	const known = FIELD_ANSWERS.get(name);
	if (known !== undefined) return known;
	const words = nameWords(name);
	const secret = secretWords(words) || words.some((word) => STRUCTURED_WORDS.has(word));
	if (name.length <= FIELD_NAME_REMEMBERED_CHARS) {
		if (FIELD_ANSWERS.size >= FIELD_ANSWERS_MAX) FIELD_ANSWERS.clear();
		FIELD_ANSWERS.set(name, secret);
	}
	return secret;
}

/** Whether a value under a secret name is worth masking. */
export function isMaskableValue(value: string): boolean {
	const trimmed = value.trim();
	return !TRIVIAL_VALUE.test(trimmed) && !VARIABLE_REFERENCE.test(trimmed);
}
