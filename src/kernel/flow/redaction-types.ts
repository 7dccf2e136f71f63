/** Redaction: one place that masks secrets before anything is persisted or emitted. */

export interface Redactor {
	/** Masks secrets in a string. */
	redactText(text: string): string;
	/**
	 * A JSON-like value with every string redacted (keys kept): a copy where anything changed, the
	 * value itself (or the part of it) where nothing did, so it must not be changed after it is handed on.
	 */
	redact<T>(value: T): T;
	/** Adds an exact secret value to mask wherever it reappears (e.g. a secret the runtime read). */
	addSecret(value: string): void;
	/**
	 * The exact secret values this redactor knows (added or from the environment) that occur in the
	 * text, longest first: what a record written now must say were its secret spans, since a later
	 * process's redactor will not know them.
	 */
	knownIn(text: string): string[];
}

export const REDACTION_MASK = "[REDACTED]";
