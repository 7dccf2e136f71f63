#!/usr/bin/env node
/**
 * Writes the README's benchmark table from one `warden eval bench --json` report, between the
 * README's bench-table markers, so the table's figures are that report's and nothing else
 * (src/surfaces/bench/readme-table.ts builds it; run `npm run build` first).
 * Usage: node scripts/bench-readme-table.mjs <report.json> [README.md]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const [reportPath, readmePath = join(root, "README.md")] = process.argv.slice(2);
if (reportPath === undefined || process.argv.length > 4) {
	process.stderr.write("usage: node scripts/bench-readme-table.mjs <report.json> [README.md]\n");
	process.exit(2);
}

function fail(message) {
	process.stderr.write(`bench-readme-table: ${message}\n`);
	process.exit(1);
}

let generator;
try {
	generator = await import(join(root, "dist", "surfaces", "bench", "readme-table.js"));
} catch (error) {
	fail(`the built table writer could not be loaded (run npm run build first): ${String(error?.message ?? error).split("\n")[0]}`);
}

let report;
try {
	report = JSON.parse(readFileSync(reportPath, "utf8"));
} catch (error) {
	fail(`${reportPath} is not a readable JSON report: ${String(error?.message ?? error).split("\n")[0]}`);
}

try {
	const readme = readFileSync(readmePath, "utf8");
	const updated = generator.replaceBenchTable(readme, generator.readmeBenchTable(report));
	writeFileSync(readmePath, updated);
	process.stdout.write(`${readmePath}: bench table ${updated === readme ? "unchanged" : "written"} from ${reportPath}\n`);
} catch (error) {
	fail(String(error?.message ?? error).split("\n")[0]);
}
