/**
 * The redactor: masks known secret values (from the environment, or added by the runtime)
 * and secret shapes (API keys, tokens, private keys, `password=` assignments) in text and in
 * JSON-like values, before anything is persisted or emitted.
 */
import { REDACTION_MASK, type Redactor } from "./redaction-types.js";
import { isMaskableValue, isSecretField } from "./secret-names.js";
import { SECRET_PATTERNS, maskAssignments } from "./secret-patterns.js";

export interface RedactorOptions {
	/** Values of variables whose names look secret are masked wherever they appear. Defaults to process.env. */
	env?: NodeJS.ProcessEnv;
	/** More shapes to mask whole; a pattern without the g flag is given one. */
	extraPatterns?: RegExp[];
}

/** Shorter exact values would mask ordinary words and numbers everywhere. */
export const MIN_SECRET_LENGTH = 6;

/** Environment variable names whose values are treated as secrets. */
export const SECRET_ENV_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

export const CIRCULAR = "[Circular]";

/** A text longer than this is redacted afresh each time rather than kept. */
const REMEMBER_UP_TO = 256 * 1024;
/** The most characters of input the redactor keeps answers for, each entry counted with ENTRY_COST more. */
const REMEMBERED_CHARS = 1024 * 1024;
/** What a remembered entry costs beyond its text, so many short texts are bounded too. */
const ENTRY_COST = 64;

export function createRedactor(opts: RedactorOptions = {}): Redactor {
	const secrets = new Set<string>();
	// Longest first, so a secret that contains another is masked whole.
	let ordered: string[] = [];
	const extra = (opts.extraPatterns ?? []).map((p) => (p.global ? p : new RegExp(p.source, `${p.flags}g`)));

	/**
	 * Redactions by the text: one call's output is redacted where the flow plane looks for secrets,
	 * again in its message and again in its event, and every record repeats the same short strings
	 * (the mode, the model, the path, the tool's name), each pass a dozen regular expressions.
	 * Emptied whenever a secret is added (the answer would change) and when it holds more than
	 * REMEMBERED_CHARS, so a long session keeps a bounded amount.
	 */
	const remembered = new Map<string, string>();
	let rememberedChars = 0;

	function addSecret(value: string): void {
		let added = false;
		for (const candidate of new Set([value, value.trim()])) {
			// The mask itself must never become a secret, or masking would never settle.
			if (candidate.length < MIN_SECRET_LENGTH || candidate.includes(REDACTION_MASK) || secrets.has(candidate))
				continue;
			secrets.add(candidate);
			added = true;
		}
		if (added) {
			ordered = [...secrets].sort((a, b) => b.length - a.length);
			remembered.clear();
			rememberedChars = 0;
		}
	}

	for (const [name, value] of Object.entries(opts.env ?? process.env)) {
		if (value !== undefined && SECRET_ENV_NAME.test(name)) addSecret(value);
	}

	function redactText(text: string): string {
		if (text.length === 0 || text.length > REMEMBER_UP_TO) return redactFresh(text);
		const known = remembered.get(text);
		if (known !== undefined) return known;
		const out = redactFresh(text);
		if (rememberedChars + text.length + ENTRY_COST > REMEMBERED_CHARS) {
			remembered.clear();
			rememberedChars = 0;
		}
		remembered.set(text, out);
		rememberedChars += text.length + ENTRY_COST;
		return out;
	}

	function redactFresh(text: string): string {
		let out = text;
		for (const secret of ordered) {
			if (out.includes(secret)) out = out.split(secret).join(REDACTION_MASK);
		}
		for (const { pattern, replace } of SECRET_PATTERNS) {
			out = out.replace(pattern, (match: string, ...rest: unknown[]) => {
				// After the capture groups, replace() passes the offset (a number): stop there.
				const end = rest.findIndex((item) => typeof item === "number");
				return replace(match, rest.slice(0, end) as (string | undefined)[]);
			});
		}
		for (const pattern of extra) out = out.replace(pattern, REDACTION_MASK);
		return maskAssignments(out);
	}

	/**
	 * `ancestors`: the path from the root to `value`, a few levels deep, so a scan is cheaper than a Set.
	 * What redaction leaves as it was is returned as it is, not copied (most evidence holds no secret,
	 * and a copy per record was a good part of the cost of writing it): a plain object or array is
	 * copied only from the first member that changes, and one that is not plain (a class instance, a
	 * key `__proto__`, which an object literal's assignment drops) is copied whole as before.
	 */
	function copy(value: unknown, ancestors: object[]): unknown {
		if (typeof value === "string") return redactText(value);
		if (value === null || typeof value !== "object") return value;
		const withJson = value as { toJSON?: () => unknown };
		if (typeof withJson.toJSON === "function") return copy(withJson.toJSON(), ancestors);
		if (ancestors.includes(value)) return CIRCULAR;
		ancestors.push(value);
		try {
			if (Array.isArray(value)) {
				if (Object.getPrototypeOf(value) === Array.prototype) {
					let i = 0;
					for (; i < value.length; i++) {
						if (!(i in value)) continue;
						const item: unknown = value[i];
						if (copy(item, ancestors) !== item) break;
					}
					if (i === value.length) return value;
				}
				// Every member again: those before the first change come back as they were.
				return value.map((item) => copy(item, ancestors));
			}
			const record = value as Record<string, unknown>;
			const keys = Object.keys(record);
			let out: Record<string, unknown> | undefined = Object.getPrototypeOf(record) === Object.prototype ? undefined : {};
			for (let i = 0; i < keys.length; i++) {
				const key = keys[i]!;
				const item = record[key];
				// Under a secret-named key the whole string is the secret, whatever its shape.
				const redacted = typeof item === "string" && isSecretField(key) && isMaskableValue(item) ? REDACTION_MASK : copy(item, ancestors);
				if (out === undefined && (redacted !== item || key === "__proto__")) {
					out = {};
					for (let j = 0; j < i; j++) out[keys[j]!] = record[keys[j]!];
				}
				if (out !== undefined) out[key] = redacted;
			}
			return out ?? record;
		} finally {
			ancestors.pop();
		}
	}

	return {
		redactText,
		redact<T>(value: T): T {
			return copy(value, []) as T;
		},
		addSecret,
		knownIn(text: string): string[] {
			return ordered.filter((secret) => text.includes(secret));
		},
	};
}
