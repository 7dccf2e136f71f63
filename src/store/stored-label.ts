/**
 * Flow labels as the stores keep them: JSON text. A label that does not read back as one is an
 * error, never a default: reading it as "public" would silently release what it protected. What
 * counts as a label is the kernel's to say (LabelRules, given at open).
 */
import type { LabelRules } from "./store-rules.js";
import { type FileLabelKey, type LabelRow, StoreError } from "./store.js";

/** Names one file label in messages: path, a short hash and the workspace. */
export function describeFileLabelKey(key: FileLabelKey): string {
	return `file label for ${key.path} (sha256 ${key.sha256.slice(0, 12)}) in ${key.workspace}`;
}

/** The JSON a store keeps; a StoreError naming `what` for a value that is not a label, so none is stored that cannot be read back. */
export function labelToJson(rules: LabelRules, label: LabelRow, what: string): string {
	const problem = rules.problem(label);
	if (problem) throw new StoreError(`${what}: refusing a malformed label (${problem})`);
	return JSON.stringify(label);
}

/** The label stored as `json`; a StoreError naming `what` if it is not one. */
export function labelFromJson(rules: LabelRules, json: string, what: string): LabelRow {
	let value: unknown;
	try {
		value = JSON.parse(json);
	} catch {
		throw new StoreError(`${what}: the stored label is not valid JSON`);
	}
	const problem = rules.problem(value);
	if (problem) throw new StoreError(`${what}: the stored label is malformed (${problem})`);
	return value as LabelRow;
}
