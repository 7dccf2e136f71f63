/** Redaction: one place that masks secrets before anything is persisted or emitted. */

export interface Redactor {
	/** Masks secrets in a string. */
	redactText(text: string): string;
	/** Deep copy of a JSON-like value with every string redacted (keys kept). */
	redact<T>(value: T): T;
	/** Adds an exact secret value to mask wherever it reappears (e.g. a secret the runtime read). */
	addSecret(value: string): void;
}

export const REDACTION_MASK = "[REDACTED]";
