/**
 * The shapes of secrets found in free text: provider API keys, private key blocks, bearer
 * tokens, JWTs, credentials in URLs, and `name=value` assignments under a secret-sounding name.
 */
import { REDACTION_MASK } from "./redaction-types.js";
import { isMaskableValue, isSecretName } from "./secret-names.js";

export interface SecretPattern {
	name: string;
	/** Must carry the g flag. */
	pattern: RegExp;
	/** The replacement for one match; returning the match unchanged keeps it. */
	replace(match: string, groups: (string | undefined)[]): string;
}

const MASK = REDACTION_MASK;

function whole(name: string, pattern: RegExp): SecretPattern {
	return { name, pattern, replace: () => MASK };
}

/** Random keys of this length almost always hold a digit; words joined by dashes do not. */
function wholeWithDigit(name: string, pattern: RegExp): SecretPattern {
	return {
		name,
		pattern,
		replace: (match) => (/\d/.test(match) ? MASK : match),
	};
}

/** Keeps group 1 (the label), masks the rest of the match. */
function afterLabel(name: string, pattern: RegExp): SecretPattern {
	return {
		name,
		pattern,
		replace: (_match, groups) => `${groups[0] ?? ""}${MASK}`,
	};
}

export const SECRET_PATTERNS: readonly SecretPattern[] = [
	// An unterminated block (a truncated output) is masked to the end of the text.
	whole(
		"private key block",
		/-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g,
	),
	{
		name: "authorization header",
		pattern:
			/\b((?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?)(?:(bearer|basic|token|digest|negotiate)[ \t]+)?([^\s"',;]+)/gi,
		replace: (match, [label, scheme, credential]) =>
			credential?.startsWith(MASK) ? match : `${label}${scheme ? `${scheme} ` : ""}${MASK}`,
	},
	{
		name: "bearer token",
		pattern: /\b(Bearer[ \t]+)([A-Za-z0-9._~+/-]+=*)/g,
		// Prose says "Bearer authentication"; a token is long or has digits.
		replace: (match, [label, token = ""]) =>
			token.length >= 8 && (/\d/.test(token) || token.length >= 20) ? `${label}${MASK}` : match,
	},
	whole("JSON web token", /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g),
	wholeWithDigit("Anthropic API key", /\bsk-ant-[A-Za-z0-9_-]{20,}/g),
	wholeWithDigit("OpenAI API key", /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g),
	whole("Stripe secret key", /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g),
	whole("GitHub token", /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/g),
	whole("GitHub fine-grained token", /\bgithub_pat_[A-Za-z0-9_]{22,}/g),
	whole("AWS access key id", /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g),
	afterLabel(
		"AWS secret access key",
		/\b(aws_secret_access_key["']?[ \t]*[:=][ \t]*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi,
	),
	whole("Slack token", /\bxox[abprse]-[A-Za-z0-9-]{10,}/g),
	whole("Google API key", /\bAIza[0-9A-Za-z_-]{35}/g),
	whole("Hugging Face token", /\bhf_[A-Za-z0-9]{30,}/g),
	{
		name: "password in a URL",
		// Bounded and anchored at the start of the scheme, so a long run of letters and dashes stays linear.
		pattern: /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:@/]{1,128}:)([^\s@/]{1,256})@/gi,
		replace: (match, [label, password]) => (password === MASK ? match : `${label}${MASK}@`),
	},
];

/**
 * `password=hunter2`, `export API_KEY=…`, `"client_secret": "…"`, `token: abc`: masks the value
 * only. Scans by hand rather than with one replace so that a non-secret assignment
 * (`url=https://x/?token=abc`) does not swallow a secret one that follows it.
 */
export function maskAssignments(text: string): string {
	// A name starts at a boundary and is bounded in length, which keeps the scan linear.
	const assignment = /(?<![A-Za-z0-9_.])([A-Za-z_][A-Za-z0-9_.-]{0,63})(["']?[ \t]*[:=][ \t]*)/g;
	let out = "";
	let copied = 0;
	for (let match = assignment.exec(text); match; match = assignment.exec(text)) {
		if (!isSecretName(match[1]!)) continue;
		const value = readValue(text, match.index + match[0].length);
		if (!value || value.inner === MASK || !isMaskableValue(value.inner)) continue;
		out += text.slice(copied, value.start) + MASK;
		copied = value.end;
		assignment.lastIndex = value.end;
	}
	return copied === 0 ? text : out + text.slice(copied);
}

interface ValueSpan {
	/** Where the masked part starts and ends (inside any quotes). */
	start: number;
	end: number;
	inner: string;
}

const DOUBLE_QUOTED = /"((?:[^"\\\n]|\\.)*)"/y;
const SINGLE_QUOTED = /'([^'\n]*)'/y;
/** `${API_KEY}`: read whole, so the braces do not cut it short and isMaskableValue sees a reference. */
const BRACED_REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/y;
/** An unquoted value; not starting with "=" so that `token == x` is a comparison, not an assignment. */
const BARE = /[^\s"'`=,;&(){}<>[\]][^\s"'`,;&(){}<>[\]]*/y;
/** `config.password`, `self.token`: a reference in code, not a literal secret. */
const DOTTED_NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;

function readValue(text: string, at: number): ValueSpan | undefined {
	for (const quoted of [DOUBLE_QUOTED, SINGLE_QUOTED]) {
		quoted.lastIndex = at;
		const match = quoted.exec(text);
		if (match)
			return {
				start: at + 1,
				end: at + 1 + match[1]!.length,
				inner: match[1]!,
			};
	}
	BRACED_REFERENCE.lastIndex = at;
	const reference = BRACED_REFERENCE.exec(text);
	if (reference) return { start: at, end: at + reference[0].length, inner: reference[0] };
	BARE.lastIndex = at;
	const match = BARE.exec(text);
	if (!match) return undefined;
	const end = at + match[0].length;
	// `token = getToken()` and `key = keys[0]` are code, not a secret.
	const next = text[end];
	if (next === "(" || next === "[" || DOTTED_NAME.test(match[0])) return undefined;
	return { start: at, end, inner: match[0] };
}
