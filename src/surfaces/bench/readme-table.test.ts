import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BenchReport } from "./bench-types.js";
import { readmeBenchTable, replaceBenchTable, TABLE_END, TABLE_START } from "./readme-table.js";

const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));
/** A real report: `runBenchmarks` with the tests' tiny sizes on a busy two-core machine. */
const FIXTURE = here("./test-support/bench-report.fixture.json");
/** What the table of that report is, read against the fixture by hand once. */
const EXPECTED = readFileSync(here("./test-support/bench-readme-table.expected.md"), "utf8").trimEnd();
const SCRIPT = here("../../../scripts/bench-readme-table.mjs");
const fixture = (): BenchReport => JSON.parse(readFileSync(FIXTURE, "utf8")) as BenchReport;

describe("readmeBenchTable", () => {
	it("writes the fixture report's table: provenance first, then one row per figure", () => {
		const block = readmeBenchTable(fixture());
		expect(block).toBe(EXPECTED);
		const lines = block.split("\n");
		expect(lines[0]).toBe(TABLE_START);
		expect(lines.at(-1)).toBe(TABLE_END);
		expect(lines[1]).toBe(
			"Figures from one run (2026-12-08 00:17 UTC, 51 s) of commit `8a8b64777731`: Node 20.20.2, 2 × AMD EPYC; load average (1, 5, 15 min) 140.42, 62.05, 24.22 before and 60.47, 52.95, 23.29 after.",
		);
		// The decision row, from the fixture's decisions section: 1261.05/s, 792.99 µs median, 728.14 best, 3473.48 cold.
		expect(lines).toContain(
			"| permission decisions (every shell command parsed, no cache; after 0.2 s of warm-up, still improving) | 1,261 / s (median 793.0 µs, best 728.1 µs, cold 3473 µs) | naive prefix match, 458,913 / s (unsafe: 12 of 48 inputs decided more permissively) | 364× slower (goal ≥ 50,000 / s missed) |",
		);
		// Every row has the table's four cells.
		for (const row of lines.filter((line) => line.startsWith("| ") && !line.startsWith("| ---"))) expect(row.split(" | ")).toHaveLength(4);
	});

	it("writes only the sections a report has, and says which --only asked for", () => {
		const { decisions, schema, startedAt, durationMs, environment } = fixture();
		const block = readmeBenchTable({ schema, startedAt, durationMs, environment: { ...environment, coresBusy: 0.456 }, only: ["decisions"], ...(decisions ? { decisions } : {}) });
		const rows = block.split("\n").filter((line) => line.startsWith("| "));
		expect(rows).toHaveLength(3);
		expect(rows[2]).toMatch(/^\| permission decisions /);
		expect(block).toContain(" after, cores 46% busy over the run; only decisions.");
	});

	it("refuses a report without provenance (an older schema)", () => {
		const old = { ...fixture(), schema: "warden.bench/2" } as unknown as BenchReport;
		expect(() => readmeBenchTable(old)).toThrow(/^the report's schema is "warden.bench\/2", not warden.bench\/3: it carries no provenance$/);
	});
});

describe("replaceBenchTable", () => {
	const readme = `# Title\n\nprose\n\n${TABLE_START}\n| old | table |\n${TABLE_END}\n\nmore prose\n`;

	it("replaces the markers and what is between them, and nothing else", () => {
		expect(replaceBenchTable(readme, `${TABLE_START}\nnew\n${TABLE_END}`)).toBe(`# Title\n\nprose\n\n${TABLE_START}\nnew\n${TABLE_END}\n\nmore prose\n`);
	});

	it("refuses a README whose markers are missing, out of order or repeated", () => {
		expect(() => replaceBenchTable("# no markers\n", "x")).toThrow(/has no start marker for the bench table/);
		expect(() => replaceBenchTable(`${TABLE_START}\n`, "x")).toThrow(/has no end marker/);
		expect(() => replaceBenchTable(`${TABLE_END}\n${TABLE_START}\n`, "x")).toThrow(/out of order or repeated/);
		expect(() => replaceBenchTable(`${readme}${TABLE_START}\n`, "x")).toThrow(/out of order or repeated/);
	});
});

describe("scripts/bench-readme-table.mjs", () => {
	let dir: string;
	const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8" });

	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), "warden-readme-table-"));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it("writes the fixture's table between a README's markers, leaving the rest as it was", () => {
		const readme = join(dir, "README.md");
		writeFileSync(readme, `intro\n\n${TABLE_START}\n| stale | 138,247 / s |\n${TABLE_END}\n\nafter\n`);
		const first = run(FIXTURE, readme);
		expect(first.stderr).toBe("");
		expect(first.status).toBe(0);
		expect(first.stdout).toBe(`${readme}: bench table written from ${FIXTURE}\n`);
		expect(readFileSync(readme, "utf8")).toBe(`intro\n\n${EXPECTED}\n\nafter\n`);
		// A second run from the same report changes nothing.
		expect(run(FIXTURE, readme).stdout).toBe(`${readme}: bench table unchanged from ${FIXTURE}\n`);
	});

	it("fails in one line on a README without markers or a report that is not JSON, and asks for a report when given none", () => {
		const bare = join(dir, "bare.md");
		writeFileSync(bare, "no markers here\n");
		const noMarkers = run(FIXTURE, bare);
		expect(noMarkers.status).toBe(1);
		expect(noMarkers.stderr).toMatch(/^bench-readme-table: the README has no start marker for the bench table \(.+\)\n$/);
		expect(readFileSync(bare, "utf8")).toBe("no markers here\n");

		const notJson = join(dir, "report.json");
		writeFileSync(notJson, "{ not json");
		const bad = run(notJson, bare);
		expect(bad.status).toBe(1);
		expect(bad.stderr).toMatch(new RegExp(`^bench-readme-table: ${notJson} is not a readable JSON report: .+\\n$`));

		const usage = run();
		expect(usage.status).toBe(2);
		expect(usage.stderr).toBe("usage: node scripts/bench-readme-table.mjs <report.json> [README.md]\n");
	});
});
