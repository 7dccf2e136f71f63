// The newcomer's demo: a governed scripted task on a fresh copy of the example workspace,
// then the audit chain it left behind.
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../dist/surfaces/cli/main.js";
import { flushed, watchReader } from "../dist/surfaces/cli/stdout-pipe.js";

watchReader(process.stdout);
const work = mkdtempSync(join(tmpdir(), "warden-demo-"));
const workspace = join(work, "workspace");
const stateDir = join(work, "state");
cpSync(new URL("../examples/demo-workspace", import.meta.url), workspace, { recursive: true });
const plan = new URL("../examples/demo-plan.yaml", import.meta.url).pathname;
// The demo shows the same thing on every machine: it ignores the user's own config file.
const config = join(work, "config.yaml");
writeFileSync(config, "# empty: the demo runs with Warden's defaults\n");

const say = (text) => process.stdout.write(`\n=== ${text}\n`);
say(`warden run (workspace ${workspace})`);
const code = await main(["run", "Fix the typo in notes.md and write a TODO list", "--model", `scripted:${plan}`, "--mode", "workspace-write", "--workspace", workspace, "--state-dir", stateDir, "--config", config]);
say("warden audit list");
await main(["audit", "list", "--state-dir", stateDir]);
say("warden audit verify");
const verify = await main(["audit", "verify", "--state-dir", stateDir]);
say(`state kept in ${stateDir}; try: node bin/warden.js sessions list --state-dir ${stateDir}`);
process.exitCode = code === 0 && verify === 0 ? 0 : 1;
// Through a pipe, what the reader has not taken yet is still delivered before the process ends.
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit();
