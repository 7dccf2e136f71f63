/**
 * The replay file's hash chain. Each line carries `prev`, the sha256 of the exact bytes of the line
 * before it (64 zeros for the first); the last line, `{type: "end", lines, digest}`, counts the lines
 * before it and hashes them all. An edited, removed, reordered or cut-off line breaks the chain, and
 * the check names where. It detects changes, it does not authenticate: whoever can write the file can
 * recompute the chain, so keep replay files where their writers are trusted.
 */
import { createHash } from "node:crypto";
import { GENESIS, ReplayError } from "./replay-format.js";

function sha256(text: string): string {
	return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The lines of a replay file (no trailing newlines): `records` chained, then the end line. */
export function sealLines(records: readonly Record<string, unknown>[]): string[] {
	const lines: string[] = [];
	const digest = createHash("sha256");
	let prev = GENESIS;
	for (const record of records) {
		const line = JSON.stringify({ ...record, prev });
		lines.push(line);
		digest.update(`${line}\n`, "utf8");
		prev = sha256(line);
	}
	lines.push(JSON.stringify({ type: "end", lines: lines.length, digest: digest.digest("hex"), prev }));
	return lines;
}

/** The whole file's text from its lines. */
export function replayText(lines: readonly string[]): string {
	return `${lines.map((l) => `${l}\n`).join("")}`;
}

/**
 * Checks the chain of a replay file's text and returns its records (end line excluded, `prev`
 * removed), in order; the first break is a ReplayError naming its line.
 */
export function verifyChain(text: string): Record<string, unknown>[] {
	const lines = text.split("\n");
	// A file written by sealLines ends with a newline; what follows it must be nothing.
	if (lines.at(-1) === "") lines.pop();
	if (lines.length === 0) throw new ReplayError("replay file is empty");
	const records: Record<string, unknown>[] = [];
	const digest = createHash("sha256");
	let prev = GENESIS;
	for (let i = 0; i < lines.length; i++) {
		const n = i + 1;
		const line = lines[i]!;
		let parsed: unknown;
		try {
			parsed = JSON.parse(line);
		} catch {
			throw new ReplayError(`replay file tampered: line ${n} is not JSON`);
		}
		if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new ReplayError(`replay file tampered: line ${n} is not a JSON object`);
		const record = parsed as Record<string, unknown>;
		if (record.prev !== prev) {
			throw new ReplayError(
				n === 1
					? "replay file tampered: line 1 is not the start of a replay chain (its prev is not 64 zeros)"
					: `replay file tampered: line ${n} does not chain to line ${n - 1} (line ${n - 1} was edited, or lines were removed or reordered there)`,
			);
		}
		if (record.type === "end") {
			if (n !== lines.length) throw new ReplayError(`replay file tampered: line ${n} is an end line but ${lines.length - n} line(s) follow it`);
			if (record.lines !== i) throw new ReplayError(`replay file tampered: line ${n} (end) counts ${String(record.lines)} lines, the file has ${i} before it`);
			if (record.digest !== digest.digest("hex")) throw new ReplayError(`replay file tampered: line ${n} (end) has a digest that does not match the lines before it`);
			return records;
		}
		const { prev: _, ...rest } = record;
		records.push(rest);
		digest.update(`${line}\n`, "utf8");
		prev = sha256(line);
	}
	throw new ReplayError(`replay file is truncated: no end line after line ${lines.length}`);
}
