/**
 * The exact values to mask once a secret file has been read, so they are redacted wherever they
 * reappear (a command's output, a later payload) even without a recognizable shape. Assignments
 * give their value, PEM blocks give themselves and each body line, JSON gives its string leaves,
 * and any other line is taken whole.
 */
import { MIN_SECRET_LENGTH } from "./redaction.js";

/** A secret file is bounded in what it adds to the redactor, as the redactor scans every text. */
export const MAX_SECRET_VALUES = 1000;

const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?-----END [A-Z0-9 ]+-----/g;
const PEM_EDGE = /^-----(?:BEGIN|END) [A-Z0-9 ]+-----$/;
// `export NAME=value`, `name: value`, `"name": "value",`, `name = value` (dotenv, ini, properties, yaml, json lines).
const ASSIGNMENT = /^(?:export\s+)?["']?[A-Za-z_][\w.-]*["']?\s*[=:]\s*(.*)$/;
const COMMENT = /^(?:#|;|\/\/|!)/;
const SECTION = /^\[[^\]]*\]$/;

function unquote(raw: string): string {
	let value = raw.trim().replace(/,$/, "").trim();
	const q = value[0];
	if ((q === '"' || q === "'" || q === "`") && value.length >= 2) {
		const end = value.lastIndexOf(q);
		if (end > 0) return value.slice(1, end);
	}
	// An unquoted dotenv value ends at an inline comment.
	const hash = value.search(/\s#/);
	if (hash >= 0) value = value.slice(0, hash).trim();
	return value;
}

function jsonLeaves(value: unknown, out: string[]): void {
	if (out.length >= MAX_SECRET_VALUES) return;
	if (typeof value === "string") out.push(value);
	else if (Array.isArray(value)) for (const item of value) jsonLeaves(item, out);
	else if (value !== null && typeof value === "object") for (const item of Object.values(value)) jsonLeaves(item, out);
}

export function secretValues(rel: string, content: string): string[] {
	const found: string[] = [];
	let rest = content;
	if (rel.toLowerCase().endsWith(".json")) {
		try {
			jsonLeaves(JSON.parse(content), found);
			rest = "";
		} catch {
			// Not JSON after all: read it line by line like any other file.
		}
	}
	rest = rest.replace(PEM_BLOCK, (block) => {
		found.push(block);
		for (const line of block.split(/\r?\n/)) {
			const body = line.trim();
			if (body !== "" && !PEM_EDGE.test(body) && !body.includes(":")) found.push(body);
		}
		return "\n";
	});
	for (const raw of rest.split(/\r?\n/)) {
		if (found.length >= MAX_SECRET_VALUES * 2) break;
		const line = raw.trim();
		if (line === "" || COMMENT.test(line) || SECTION.test(line)) continue;
		const assignment = ASSIGNMENT.exec(line);
		found.push(assignment ? unquote(assignment[1]!) : line);
	}
	// JSON strings may hold a PEM key with escaped newlines: its body lines are secrets too.
	for (const value of [...found]) {
		if (value.includes("-----BEGIN ")) {
			for (const line of value.split(/\r?\n|\\n/)) {
				const body = line.trim();
				if (body !== "" && !PEM_EDGE.test(body)) found.push(body);
			}
		}
	}
	const values: string[] = [];
	const seen = new Set<string>();
	for (const value of found) {
		if (value.length < MIN_SECRET_LENGTH || seen.has(value)) continue;
		seen.add(value);
		values.push(value);
		if (values.length >= MAX_SECRET_VALUES) break;
	}
	return values;
}
