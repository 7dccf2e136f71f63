/**
 * Replay files under generated damage: a real exported file with bytes flipped, lines dropped,
 * reordered, duplicated or inserted, or cut short, is refused with a one-line error naming the
 * line; a file whose chain was recomputed after its values were changed is read or refused by the
 * format checks, never a crash; the unmodified file still verifies.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScriptedModel } from "../../models/scripted.js";
import { FUZZ_TIMEOUT_MS, fuzzRuns } from "../../test-support/fuzz-runs.js";
import { closeTestRuntime, openTestRuntime, type TestRuntime } from "../test-support/test-runtime.js";
import { replayText, sealLines, verifyChain } from "./replay-chain.js";
import { ReplayError } from "./replay-format.js";
import { readReplay } from "./replay-reader.js";

const plan = {
	steps: [
		{
			tool_calls: [
				{ name: "edit_file", arguments: { path: "notes.txt", old: "hello", new: "hello world" } },
				{ name: "write_file", arguments: { path: "made/new.txt", content: "créé ✓\n" } },
				{ name: "read_file", arguments: '{"path": "notes.txt"' },
			],
		},
		{ tool_calls: [{ name: "read_file", arguments: { path: "made/new.txt" } }, { name: "write_file", arguments: { path: "../outside.txt", content: "x" } }] },
		{ text: "done" },
	],
};

let t: TestRuntime;
let lines: string[];
let text: string;
beforeAll(async () => {
	t = await openTestRuntime("warden-fuzz-replay-", { files: { "notes.txt": "hello\n", "keep.txt": "untouched\n" } });
	const session = await t.runtime.openSession({ workspace: t.workspace, model: ScriptedModel.fromPlan(plan, "scripted:fuzz") });
	expect((await session.send("edit the notes")).status).toBe("completed");
	await session.end();
	lines = await t.runtime.exportReplay(session.id);
	text = replayText(lines);
});
afterAll(async () => {
	await closeTestRuntime(t);
});

/** Refused with a ReplayError of one line that says where (a line number), or that the file is empty. */
function refusedNamingTheLine(damaged: string): void {
	let error: unknown;
	try {
		readReplay(damaged);
	} catch (err) {
		error = err;
	}
	if (error === undefined) {
		// Only a change that leaves the same records (the final newline dropped) may be accepted.
		expect(readReplay(damaged)).toEqual(readReplay(text));
		return;
	}
	expect(error, String((error as Error).stack)).toBeInstanceOf(ReplayError);
	const message = (error as Error).message;
	expect(message).not.toMatch(/[\n\r]/);
	expect(message).toMatch(/line \d+|is empty/);
}

type Damage = (lines: string[], bytes: Buffer) => string;

const lineIndex = fc.nat();
const damage: fc.Arbitrary<Damage> = fc.oneof(
	fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([at, mask]): Damage => (_l, bytes) => {
		const copy = Buffer.from(bytes);
		const i = at % copy.length;
		copy[i] = copy[i]! ^ mask;
		return copy.toString("utf8");
	}),
	fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 2, maxLength: 8 }).map((flips): Damage => (_l, bytes) => {
		const copy = Buffer.from(bytes);
		for (const [at, mask] of flips) copy[at % copy.length] = copy[at % copy.length]! ^ mask;
		return copy.toString("utf8");
	}),
	lineIndex.map((i): Damage => (l) => replayText(l.filter((_, j) => j !== i % l.length))),
	fc.tuple(lineIndex, lineIndex).map(([a, b]): Damage => (l) => {
		const copy = [...l];
		const [x, y] = [a % l.length, b % l.length];
		[copy[x], copy[y]] = [copy[y]!, copy[x]!];
		return replayText(copy);
	}),
	fc.tuple(lineIndex, lineIndex).map(([a, b]): Damage => (l) => {
		const copy = [...l];
		copy.splice(b % (l.length + 1), 0, l[a % l.length]!);
		return replayText(copy);
	}),
	fc.tuple(lineIndex, fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.json({ maxDepth: 2 }))).map(([at, inserted]): Damage => (l) => {
		const copy = [...l];
		copy.splice(at % (l.length + 1), 0, inserted);
		return replayText(copy);
	}),
	fc.nat().map((cut): Damage => (_l, bytes) => bytes.subarray(0, cut % (bytes.length + 1)).toString("utf8")),
	fc.constantFrom<Damage>(
		(l) => l.join("\n"),
		(l) => l.join("\r\n"),
		(l) => `${replayText(l)}\n`,
		(l) => `\ufeff${replayText(l)}`,
		(l) => replayText(l).replaceAll("\n", "\n\n"),
		() => "",
		() => "\n",
	),
);

/** A value put in place of one field of one record, before the chain is recomputed. */
const replacement = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(undefined, "", "../x", "/etc/passwd", "a\u0000b", -1, 1.5, 2 ** 60, [], {}, null));

function replaceAt(value: unknown, choice: number, by: unknown): unknown {
	// Walks to the choice-th node (depth first) and replaces it; a record is a small tree.
	let n = choice;
	const walk = (v: unknown): unknown => {
		if (n-- === 0) return by;
		if (Array.isArray(v)) return v.map(walk);
		if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
		return v;
	};
	return walk(value);
}

describe("replay files under generated damage", () => {
	it("verifies the unmodified export", () => {
		const replay = readReplay(text);
		expect(replay.items.length).toBe(lines.length - 2);
	});

	it(
		"refuses a damaged file with one line naming where, and accepts only an unchanged one",
		() => {
			const bytes = Buffer.from(text, "utf8");
			fc.assert(
				fc.property(damage, (d) => {
					refusedNamingTheLine(d(lines, bytes));
				}),
				fuzzRuns(300, 0.6),
			);
		},
		FUZZ_TIMEOUT_MS,
	);

	it(
		"reads or refuses, never crashes on, a file whose values were changed and whose chain was then recomputed",
		() => {
			const records = verifyChain(text);
			fc.assert(
				fc.property(lineIndex, fc.nat({ max: 60 }), replacement, (which, node, by) => {
					const i = which % records.length;
					const changed = records.map((r, j) => (j === i ? replaceAt(r, node, by) : r));
					const resealed = replayText(sealLines(changed.map((r) => (typeof r === "object" && r !== null && !Array.isArray(r) ? (r as Record<string, unknown>) : { value: r }))));
					try {
						readReplay(resealed);
					} catch (err) {
						expect(err, String((err as Error).stack)).toBeInstanceOf(ReplayError);
						expect((err as Error).message).not.toMatch(/[\n\r]/);
						expect((err as Error).message).toMatch(/line \d+|schema version/);
					}
				}),
				fuzzRuns(200, 0.4),
			);
		},
		FUZZ_TIMEOUT_MS,
	);
});
