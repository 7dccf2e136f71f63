/**
 * What the flow plane makes of one shell command, before and after it runs. The command carries
 * the join of the labels of what it could read: the files it names, the directories its readers
 * walk, the globs the shell expands, the objects a git send carries, and the whole workspace for a
 * program whose reads cannot be known. A command that may reach the network is egress of that label
 * (and of the call's own arguments) to every destination it names ("net:unknown" when it names none
 * Warden can read); every file it writes is a workspace sink decided with the same label, and keeps
 * the label afterwards. A human approving the command does not change any of this: an approval is
 * for the command, a release is for one payload. A program that connects somewhere it does not name
 * is beyond what the text shows: the sandbox enforces that, sharing the network only with a command
 * whose egress this admitted.
 */
import type { CallAuthority } from "../authority/authority.js";
import { fsResource } from "../authority/resource.js";
import { writeTargets } from "../admission/shell/write-targets.js";
import type { ParsedShell } from "../admission/shell/shell-types.js";
import { lstatIfExists, readdirWithTypes, readFile, walkFiles } from "../../providers/fs-provider.js";
import { copiesInto, namedAtRunTime } from "./copy-programs.js";
import type { CallFlow, FlowDecisionRecord } from "./flow-types.js";
import { atMost, join, type Label, label } from "./label.js";
import { shellEgress } from "./shell-egress.js";
import { type ReadScope, shellReads } from "./shell-reads.js";
import { createHash } from "node:crypto";
import * as path from "node:path";

export interface ShellFlowContext {
	flow: CallFlow;
	parseShell: (command: string) => ParsedShell;
	callId: string;
	/** The workspace's real path: the command runs there. */
	root: string;
	authority?: CallAuthority | undefined;
	approved?: boolean | undefined;
	hostAllowed?: boolean | undefined;
}

export interface ShellFlowAdmission {
	records: FlowDecisionRecord[];
	/** Whether the command may share the network (its egress cleared flow and has authority). */
	network: boolean;
	/** The label of what the command could read (egress and written files carry it). */
	readLabel: Label;
	/**
	 * Before the command runs: teaches the session's redactor the values of every secret file the
	 * command may print (named workspace files, files in its read scope, blobs of the revisions it
	 * reads), so its output can be redacted while it is written, not only once it settles. False when
	 * the read label is secret for a reason whose values cannot be known beforehand (a file outside the
	 * workspace, a revision or scope known only at run time): then the output must not be shown live.
	 */
	primeRedactor(): Promise<boolean>;
	/** After the command ran: labels its output and the files it wrote. */
	settle(output: string): Promise<void>;
}

/** The workspace-relative path a written word names, or undefined when it lies outside or is only known at run time. */
function workspaceTarget(root: string, word: { value: string; static: boolean }): string | undefined {
	if (!word.static || word.value === "") return undefined;
	const rel = path.relative(root, path.resolve(root, word.value));
	if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return undefined;
	return rel.split(path.sep).join("/");
}

/**
 * The absolute path a word names outside the workspace, or undefined when it is inside, only known
 * at run time, or no regular place to keep data (`/dev`, `/proc`). A copy kept there carries its
 * label by that path: `cp .env /tmp/x` and then `curl -d @/tmp/x` is one flow.
 */
function outsideTarget(root: string, word: { value: string; static: boolean }): string | undefined {
	if (!word.static || word.value === "" || workspaceTarget(root, word) !== undefined) return undefined;
	const abs = path.resolve(root, word.value);
	return abs === root || /^\/(dev|proc|sys)(\/|$)/.test(abs) ? undefined : abs;
}

/** `shopt -s dotglob` / `globstar` on the same line change what the shell's globs match. */
function shellOptions(parsed: ParsedShell): { dotglob: boolean; globstar: boolean } {
	const set = new Set<string>();
	for (const c of parsed.commands) {
		if (c.program !== "shopt" || !c.args.some((w) => w.value === "-s")) continue;
		for (const w of c.args) set.add(w.value);
	}
	return { dotglob: set.has("dotglob"), globstar: set.has("globstar") };
}

export async function admitShellFlow(ctx: ShellFlowContext, command: string): Promise<ShellFlowAdmission> {
	const { flow } = ctx;
	const parsed = ctx.parseShell(command);
	const egress = shellEgress(parsed);
	const named = await Promise.all([...egress.files, ...egress.globs].map((f) => flow.pathLabel(f)));
	// Plain operands that are globs name the files the shell expands them to (not what lies below).
	const scopes: ReadScope[] = [...shellReads(parsed.commands), ...egress.globs.map((g): ReadScope => ({ kind: "glob", pattern: g, recursive: false, via: "a glob" }))];
	const inside = [...new Set(egress.files.flatMap((f) => workspaceTarget(ctx.root, { value: f, static: true }) ?? outsideTarget(ctx.root, { value: f, static: true }) ?? []))];
	// Only a command that names a workspace file or reads beyond its names looks at the recorded labels (and only the latter pays for a walk).
	const labeller = scopes.length === 0 && inside.length === 0 ? undefined : flow.scopeLabeller();
	const recorded = labeller && inside.length > 0 ? await labeller.recordedOn(inside) : undefined;
	const namedLabel = join(label("internal", "trusted", { kind: "call", ref: ctx.callId }), ...named, ...(recorded ? [recorded.label] : []));
	const scope = labeller && scopes.length > 0 ? await labeller.labelOf(scopes, shellOptions(parsed)) : undefined;
	const readLabel = scope ? join(namedLabel, scope.label) : namedLabel;

	const targets = parsed.commands.flatMap((c) => writeTargets(c)).flatMap((t) => {
		const rel = workspaceTarget(ctx.root, t.path);
		return rel === undefined || t.kind === "delete" || t.kind === "create-dir" ? [] : [rel];
	});
	const written = [...new Set(targets)];
	const writtenOutside = [
		...new Set(
			parsed.commands
				.flatMap((c) => writeTargets(c))
				.flatMap((t) => (t.kind === "delete" || t.kind === "create-dir" ? [] : (outsideTarget(ctx.root, t.path) ?? []))),
		),
	];
	// Files named only when the command runs (`git format-patch -o out`): their directory and name.
	const laterNamed = parsed.commands.flatMap((c) => namedAtRunTime(writeTargets(c)));
	// A copier whose destination is a directory writes its copies inside it (`cp a b dir/`).
	const copies = [
		...new Set(
			parsed.commands.flatMap((c) =>
				writeTargets(c)
					.filter((t) => t.kind === "write")
					.flatMap((t) => copiesInto(c, t.path))
					.flatMap((p) => workspaceTarget(ctx.root, { value: p, static: true }) ?? outsideTarget(ctx.root, { value: p, static: true }) ?? []),
			),
		),
	];
	const records: FlowDecisionRecord[] = [];
	// Each written workspace file is a sink: a host rule may keep secret or untrusted data out of it.
	if (written.length > 0) records.push(...(await flow.admitEgress({ operation: "fs.write", sinks: written.map(fsResource), payload: command, label: readLabel })));

	let network = false;
	let outputLabel = namedLabel;
	if (egress.network) {
		records.push(...(await flow.admitEgress({ operation: "shell.exec", sinks: egress.sinks, payload: command, label: readLabel })));
		// admitEgress throws on a refusal: every named sink (net:unknown included) cleared flow. The network
		// is shared only with authority for it too: a host grant of egress on every sink the command names,
		// a host allow rule naming this command, or a human who approved it. Otherwise it runs without one.
		const authority = ctx.authority;
		const granted = authority !== undefined && egress.sinks.every((sink) => authority.permits({ resource: sink, right: "egress" }));
		network = granted || ctx.approved === true || ctx.hostAllowed === true;
		// What a network client prints came from elsewhere.
		outputLabel = join(namedLabel, label("internal", "untrusted", ...egress.sinks.map((s) => ({ kind: "url" as const, ref: s }))));
	}

	const writeLabel = records.find((r) => r.operation === "fs.write")?.label ?? readLabel;
	return {
		records,
		network,
		readLabel,
		async primeRedactor() {
			if (readLabel.sensitivity !== "secret") return true;
			const namedSecret = (await Promise.all(inside.map(async (rel) => ((await flow.pathLabel(rel)).sensitivity === "secret" ? [rel] : [])))).flat();
			const files = [...new Set([...namedSecret, ...(scope?.secretFiles ?? [])])].filter((rel) => !path.isAbsolute(rel));
			if (files.length > 0) await flow.learnSources(label("secret", "trusted", ...files.map((ref) => ({ kind: "file" as const, ref }))));
			// A revision read's blobs are joined at settle whatever the output shows; joining them now changes no label.
			for (const shown of scope?.printed?.contents ?? []) flow.observe(label("secret", "trusted", { kind: "file", ref: shown.path }), shown.content);
			const printed = new Set((scope?.printed?.contents ?? []).map((c) => c.path));
			const known = new Set([...files, ...printed]);
			// Every file the label names is one whose values were learned, a blob of one (`.env (in HEAD)`), or a
			// plain workspace path that is not secret (the named and scoped secret ones are all in `known`). A file
			// outside the workspace, or a scope annotated as not seen whole, names values nobody knows yet.
			const accounted = (ref: string): boolean => {
				if (known.has(ref)) return true;
				const blobOf = /^(.*?) \(in .*\)$/.exec(ref)?.[1];
				if (blobOf !== undefined) return printed.has(blobOf);
				return !path.isAbsolute(ref) && !ref.includes(" (");
			};
			return readLabel.omitted === undefined && readLabel.sources.every((s) => s.kind !== "file" || accounted(s.ref));
		},
		async settle(output) {
			// The output carries the secret files in scope whose content shows in it; their values join the redactor.
			if (labeller && scope && scope.secretFiles.length > 0) {
				for (const seen of await labeller.seenIn(output, scope.secretFiles)) {
					flow.observe(label("secret", "trusted", { kind: "file", ref: seen.path }), seen.content);
				}
			}
			// A revision read prints the files it reads: its output carries their label, their values join the redactor.
			if (scope?.printed) {
				for (const shown of scope.printed.contents) flow.observe(label("secret", "trusted", { kind: "file", ref: shown.path }), shown.content);
				flow.observe(scope.printed.label);
			}
			flow.observe(outputLabel, output);
			if (atMost(writeLabel.sensitivity, "internal") && writeLabel.integrity === "trusted") return;
			// Outside the workspace no sink rule applies, but the copy keeps its label, by its absolute path.
			const files = [...written, ...writtenOutside];
			for (const copy of copies) {
				const found = await lstatIfExists(path.resolve(ctx.root, copy)).catch(() => null);
				if (found?.type === "file") files.push(copy);
				if (found?.type !== "dir") continue;
				const walk = await walkFiles(path.resolve(ctx.root, copy), { limit: COPY_WALK_LIMIT });
				files.push(...walk.paths.map((p) => `${copy}/${p}`));
			}
			for (const { dir, name } of laterNamed) {
				const at = workspaceTarget(ctx.root, { value: dir, static: true }) ?? (path.resolve(ctx.root, dir) === ctx.root ? "." : outsideTarget(ctx.root, { value: dir, static: true }));
				if (at === undefined) continue;
				const entries = await readdirWithTypes(path.resolve(ctx.root, at)).catch(() => []);
				files.push(...entries.filter((e) => e.type === "file" && name.test(e.name)).map((e) => (at === "." ? e.name : `${at}/${e.name}`)));
			}
			for (const rel of new Set(files)) {
				let bytes: Buffer;
				try {
					bytes = await readFile(path.resolve(ctx.root, rel), { maxBytes: WRITTEN_HASH_MAX_BYTES });
				} catch {
					// Not written (the command failed first) or not a regular file: nothing to label.
					continue;
				}
				await flow.labelWrite(rel, createHash("sha256").update(bytes).digest("hex"), writeLabel);
			}
		},
	};
}

/** Most files labelled in one directory a command copied: a larger copied tree is labelled this far. */
const COPY_WALK_LIMIT = 5_000;
/** A written file larger than this is not hashed, so not labelled: its content is beyond what Warden reads back. */
const WRITTEN_HASH_MAX_BYTES = 256 * 1024 * 1024;
