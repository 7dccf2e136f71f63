#!/usr/bin/env node
import { flushed, readerGone, watchReader } from "../dist/surfaces/cli/stdout-pipe.js";
import { main } from "../dist/surfaces/cli/main.js";

watchReader(process.stdout);
const code = await main(process.argv.slice(2));
// A reader that went away already set the status: not everything was delivered.
if (!readerGone()) process.exitCode = code;
// A slow reader still gets every byte: exit only once stdout and stderr have drained.
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(process.exitCode);
