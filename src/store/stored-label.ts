/**
 * Flow labels as the stores keep them: JSON text. A label that does not read back as one is an
 * error, never a default: reading it as "public" would silently release what it protected.
 */
import { INTEGRITIES, type Label, SENSITIVITIES } from "../kernel/flow/label.js";
import { type FileLabelKey, StoreError } from "./store.js";

const SOURCE_KINDS = new Set(["file", "url", "call", "user", "system", "model", "detected", "env"]);

/** Names one file label in messages: path, a short hash and the workspace. */
export function describeFileLabelKey(key: FileLabelKey): string {
	return `file label for ${key.path} (sha256 ${key.sha256.slice(0, 12)}) in ${key.workspace}`;
}

/** The JSON a store keeps; a StoreError naming `what` for a value that is not a label, so none is stored that cannot be read back. */
export function labelToJson(label: Label, what: string): string {
	const problem = labelProblem(label);
	if (problem) throw new StoreError(`${what}: refusing a malformed label (${problem})`);
	return JSON.stringify(label);
}

/** The label stored as `json`; a StoreError naming `what` if it is not one. */
export function labelFromJson(json: string, what: string): Label {
	let value: unknown;
	try {
		value = JSON.parse(json);
	} catch {
		throw new StoreError(`${what}: the stored label is not valid JSON`);
	}
	const problem = labelProblem(value);
	if (problem) throw new StoreError(`${what}: the stored label is malformed (${problem})`);
	return value as Label;
}

function labelProblem(value: unknown): string | undefined {
	if (value === null || typeof value !== "object" || Array.isArray(value)) return "not an object";
	const l = value as Record<string, unknown>;
	if (!(SENSITIVITIES as readonly unknown[]).includes(l.sensitivity)) return `sensitivity ${String(l.sensitivity)}`;
	if (!(INTEGRITIES as readonly unknown[]).includes(l.integrity)) return `integrity ${String(l.integrity)}`;
	if (!Array.isArray(l.sources)) return "sources is not a list";
	for (const s of l.sources as unknown[]) {
		if (s === null || typeof s !== "object") return "a source is not an object";
		const source = s as Record<string, unknown>;
		if (typeof source.kind !== "string" || !SOURCE_KINDS.has(source.kind)) return `source kind ${String(source.kind)}`;
		if (typeof source.ref !== "string") return "a source has no ref";
		if (source.sha256 !== undefined && typeof source.sha256 !== "string") return "a source sha256 is not text";
	}
	if (l.omitted !== undefined && !(Number.isInteger(l.omitted) && (l.omitted as number) >= 0)) return `omitted ${String(l.omitted)}`;
	return undefined;
}
