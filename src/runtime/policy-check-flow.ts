/**
 * The flow half of `warden policy check`: for a call that would send data somewhere, each sink it
 * names, the clearance the sink registry gives it, the payload's label and the verdict egress
 * admission would reach, and what the model's sink would do with a tool result labelled secret.
 * It builds the registry with sinkRegistry and decides with flowVerdict, as a session does, so
 * the explanation and the run cannot disagree. Nothing is sent and nobody is asked.
 */
import type { ParsedShell } from "../kernel/admission/shell/shell-types.js";
import { fsResource, llmResource, memoryResource, netResource } from "../kernel/authority/resource.js";
import { memoryPayload } from "../kernel/kernel-memory.js";
import { DEFAULT_MEMORY_NAMESPACE, DEFAULT_MEMORY_SCOPE } from "../tools/memory-write.js";
import type { TaskCeiling } from "../kernel/authority/task-ceiling.js";
import { canonicalJson } from "../kernel/evidence/audit-chain.js";
import { describeClearance, describeData, flowVerdict } from "../kernel/flow/egress-admission.js";
import { FlowConfigError } from "../kernel/flow/flow-errors.js";
import type { FlowOperation, FlowSettings, SinkClearance, SinkRegistry, SinkRule } from "../kernel/flow/flow-types.js";
import { globMayNameSecret, secretFileMatcher } from "../kernel/flow/file-labels.js";
import { BOTTOM, INTEGRITIES, type Integrity, type Label, SENSITIVITIES, type Sensitivity, type SourceRef, join, label } from "../kernel/flow/label.js";
import { createRedactor } from "../kernel/flow/redaction.js";
import { INITIAL_CONTEXT } from "../kernel/flow/session-flow.js";
import { shellEgress } from "../kernel/flow/shell-egress.js";
import { type ReadScope, shellReads } from "../kernel/flow/shell-reads.js";
import { ScopeLabeller } from "../kernel/flow/shell-scope-label.js";
import { writeTargets } from "../kernel/admission/shell/write-targets.js";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { checkSinkRules, createSinkRegistry, defaultSinkRules } from "../kernel/flow/sink-registry.js";
import { modelProfile } from "../kernel/kernel-llm.js";
import { resolveWorkspacePath } from "../kernel/workspace-paths.js";
import { isLoopbackUrl } from "../models/endpoint-url.js";
import type { ModelProfiles } from "../models/model-profile.js";
import { resolveModelSpec } from "../models/model-spec.js";
import { ModelError, type ModelLocality, type ModelProvider } from "../models/provider.js";
import { readFile } from "../providers/fs-provider.js";
import { DEFAULT_TOOL_LIMITS } from "../tools/tool.js";
import { RuntimeConfigError } from "./runtime-config-error.js";
import { sinkRegistry } from "./session-flow-setup.js";

/** The label of the data to check; integrity defaults to trusted. */
export interface FlowLabelInput {
	sensitivity: Sensitivity;
	integrity?: Integrity;
	sources?: SourceRef[];
}

/** One sink of the call, as egress admission would see it. */
export interface FlowSinkCheck {
	operation: FlowOperation;
	sink: string;
	/** Trust, max, release, min_integrity and the rule that matched (`pattern (source)` or `default: unmatched sink`). */
	clearance: SinkClearance;
	/** The payload's label: the checked label ⊔ the files the call names ⊔ secret shapes found in the payload. */
	label: Label;
	/** `release`: only an exact one-shot release, approved by a human for this payload, would send it. */
	decision: "allow" | "release" | "deny";
	why: string;
	/** The task ceiling names sinks of this kind, so this sink must be one of them. */
	ceiling_bounds: boolean;
}

/** What the model's sink does with a tool result labelled secret. */
export interface ModelSinkCheck {
	sink: string;
	locality: ModelLocality;
	clearance: SinkClearance;
	redact_model_context: NonNullable<FlowSettings["redact_model_context"]>;
	/** Secrets are masked in tool results before they enter the model's context. */
	redacts: boolean;
	/** `sent` (masked when `redacts`), `release` (needs an exact release each time) or `withheld`. */
	secret_results: "sent" | "release" | "withheld";
	why: string;
	/** Why the model's locality was taken as remote, when its spec could not be read. */
	note?: string;
}

export interface FlowExplanation {
	/** The label checked: the request's, or the context a session starts with. */
	label: Label;
	/** Whether the call would send anything out (a workspace write counts: it is a sink too). */
	egress: boolean;
	/** Files a shell command names, with the label each carries into the payload. */
	files?: { path: string; label: Label }[];
	/** What a shell command may read beyond the names (directories walked, globs, git sends), with each one's label. */
	reads?: { scope: string; label: Label }[];
	sinks: FlowSinkCheck[];
	/** Why no sink could be named for an egress call (e.g. a URL net.fetch refuses). */
	note?: string;
	model?: ModelSinkCheck;
}

export interface FlowCheckInput {
	tool: string;
	args: Record<string, unknown>;
	/** Real path of the workspace. */
	workspace: string;
	ceiling: TaskCeiling;
	settings: FlowSettings;
	label?: FlowLabelInput;
	/** The session's model spec, when one is configured. */
	model?: string;
	/** Named profiles the spec may name (the config's `models:`). */
	modelProfiles?: ModelProfiles;
	env: NodeJS.ProcessEnv;
	parseShell: (command: string) => ParsedShell;
}

interface Egress {
	operation: FlowOperation;
	sinks: string[];
	payload: string;
	named?: Label;
	files?: { path: string; label: Label }[];
	/** What a shell command may read beyond its names, with each scope's label. */
	reads?: { scope: string; label: Label }[];
	/** Workspace files a shell command writes (`fs:` sinks), decided with the same payload label. */
	writes?: string[];
	note?: string;
}

/** Checks a label given through the API; the CLI turns its flag into one. */
export function checkedLabel(input: FlowLabelInput | undefined): Label {
	if (input === undefined) return INITIAL_CONTEXT;
	if (!(SENSITIVITIES as readonly unknown[]).includes(input.sensitivity)) {
		throw new RuntimeConfigError(`label sensitivity must be one of ${SENSITIVITIES.join(", ")}, got ${JSON.stringify(input.sensitivity)}`);
	}
	const integrity = input.integrity ?? "trusted";
	if (!(INTEGRITIES as readonly unknown[]).includes(integrity)) {
		throw new RuntimeConfigError(`label integrity must be one of ${INTEGRITIES.join(", ")}, got ${JSON.stringify(integrity)}`);
	}
	return label(input.sensitivity, integrity, ...(input.sources ?? []));
}

/** Where a model spec sends the context, read from the spec alone (nothing is loaded or contacted). */
function modelLocality(spec: string, env: NodeJS.ProcessEnv, profiles?: ModelProfiles): { spec: string; locality: ModelLocality; note?: string } {
	try {
		const resolved = resolveModelSpec(spec, env, profiles);
		if (resolved.kind === "scripted" || resolved.kind === "llama") return { spec: resolved.spec, locality: "in-process" };
		// A profile may mark a loopback URL as leaving the host (a tunnel), never the reverse.
		if (resolved.locality === "remote") return { spec: resolved.spec, locality: "remote" };
		return { spec: resolved.spec, locality: isLoopbackUrl(resolved.baseUrl) ? "loopback" : "remote" };
	} catch (err) {
		if (!(err instanceof ModelError)) throw err;
		// A model whose destination cannot be read is not trusted with secrets, as a run would not be.
		return { spec: spec.trim(), locality: "remote", note: `${err.message}; taken as remote` };
	}
}

/** The model as the registry needs it: its spec and where it sends. */
function describedModel(spec: string, locality: ModelLocality): Pick<ModelProvider, "spec" | "locality"> {
	return { spec, locality };
}

function registryFor(settings: FlowSettings, model: Pick<ModelProvider, "spec" | "locality"> | undefined): SinkRegistry {
	try {
		if (model) return sinkRegistry(settings, model);
		// No model configured: the same host rules and defaults, less the model's own (it matches only llm: sinks).
		const host: SinkRule[] = checkSinkRules(settings.sinks ?? [], "flow.sinks", "host");
		return createSinkRegistry([...host, ...defaultSinkRules()]);
	} catch (err) {
		if (err instanceof FlowConfigError) throw new RuntimeConfigError(err.message);
		throw err;
	}
}

function kindOf(sink: string): string {
	const colon = sink.indexOf(":");
	return colon < 0 ? sink : sink.slice(0, colon);
}

/** Mirrors kernel-net.ts: everything the request carries leaves (method, URL, headers, body). */
function fetchEgress(args: Record<string, unknown>): Egress {
	const operation = "net.fetch";
	const raw = String(args.url);
	let url: URL;
	let sink: string;
	try {
		url = new URL(raw);
		if (url.protocol !== "http:" && url.protocol !== "https:") throw new RangeError(`net.fetch supports http: and https: URLs, not ${url.protocol}`);
		sink = netResource(url.href);
	} catch (err) {
		return { operation, sinks: [], payload: "", note: `${err instanceof RangeError ? err.message : `${JSON.stringify(raw)} is not a URL`}: net.fetch refuses it before any data leaves` };
	}
	const method = (typeof args.method === "string" ? args.method : "GET").toUpperCase();
	const payload = canonicalJson({ method, url: url.href, headers: args.headers ?? {}, body: args.body ?? null });
	return { operation, sinks: [sink], payload };
}

/**
 * Mirrors the shell's flow (kernel/flow/shell-flow.ts): the files a command names and what its
 * programs may read beyond them (trees, globs, git sends, the workspace for unknown readers) join
 * its payload; the command text is what leaves, to each destination and to each file it writes.
 * Labels a session recorded on written content are not consulted here (there is no session).
 */
async function shellFlow(command: string, input: FlowCheckInput): Promise<Egress & { network: boolean }> {
	const parsed = input.parseShell(command);
	const egress = shellEgress(parsed);
	const isSecret = secretFileMatcher(input.settings.secret_files ?? []);
	const files = [...egress.files, ...egress.globs].map((path) => {
		const secret = isSecret(path) || globMayNameSecret(path, isSecret);
		return { path, label: label(secret ? "secret" : "internal", "trusted", { kind: "file", ref: path }) };
	});
	const scopes: ReadScope[] = [...shellReads(parsed.commands), ...egress.globs.map((g): ReadScope => ({ kind: "glob", pattern: g, recursive: false, via: "a glob" }))];
	const labeller = new ScopeLabeller({ root: input.workspace, isSecretFile: isSecret, recorded: async () => [], sessionPaths: () => new Map() });
	const reads = await Promise.all(scopes.map(async (scope) => ({ scope: describeScope(scope), label: (await labeller.labelOf([scope])).label })));
	const writes = parsed.commands.flatMap((c) => writeTargets(c)).flatMap((t) => {
		const rel = workspaceTarget(input.workspace, t.path);
		return rel === undefined || t.kind === "delete" || t.kind === "create-dir" ? [] : [fsResource(rel)];
	});
	// A run also joins the call itself (internal, trusted); its id would name nothing here.
	const named = join(label("internal", "trusted"), ...files.map((f) => f.label), ...reads.map((r) => r.label));
	return {
		network: egress.network,
		operation: "shell.exec",
		sinks: egress.network ? egress.sinks : [],
		payload: command,
		named,
		files,
		...(reads.length > 0 ? { reads } : {}),
		writes: [...new Set(writes)],
	};
}

function describeScope(scope: ReadScope): string {
	switch (scope.kind) {
		case "tree":
			return `${scope.path} and everything below it (${scope.via})`;
		case "glob":
			return `${scope.pattern} as the shell expands it${scope.recursive ? ", with what lies below" : ""} (${scope.via})`;
		case "git":
			return `the objects ${scope.via} sends${scope.worktree ? ", and the working tree committed first" : ""}`;
		case "revision":
			return `the files ${scope.via} prints from the revisions it names${scope.worktree ? ", and the working tree committed first" : ""}`;
		case "git-alias":
			return `what ${scope.via} reads, if the repository's config makes it an alias`;
		default:
			return `the whole workspace (${scope.via})`;
	}
}

/** The workspace-relative path a written word names, or undefined when it lies outside or is only known at run time. */
function workspaceTarget(root: string, word: { value: string; static: boolean }): string | undefined {
	if (!word.static || word.value === "") return undefined;
	const rel = relative(root, resolve(root, word.value));
	if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return undefined;
	return rel.split(sep).join("/");
}

/** Mirrors kernel-fs.ts: the whole content written is the payload, to `fs:<real relative path>`. */
async function writeEgress(tool: string, args: Record<string, unknown>, workspace: string): Promise<Egress> {
	const operation = "fs.write";
	let resolved: { rel: string; abs: string };
	try {
		resolved = await resolveWorkspacePath({ given: workspace, real: workspace }, String(args.path));
	} catch (err) {
		return { operation, sinks: [], payload: "", note: `${(err as Error).message.split("\n")[0]}: the primitive refuses it before anything is written` };
	}
	const sinks = [fsResource(resolved.rel)];
	if (tool === "write_file") return { operation, sinks, payload: String(args.content) };
	const edit = { old: String(args.old), new: String(args.new) };
	try {
		const before = (await readFile(resolved.abs, { maxBytes: DEFAULT_TOOL_LIMITS.maxReadBytes })).toString("utf8");
		const at = before.indexOf(edit.old);
		if (edit.old !== "" && at !== -1 && before.indexOf(edit.old, at + 1) === -1) {
			return { operation, sinks, payload: before.slice(0, at) + edit.new + before.slice(at + edit.old.length) };
		}
		return { operation, sinks, payload: edit.new, note: "old does not occur exactly once, so the edit would fail; checked on the new text alone" };
	} catch (err) {
		return { operation, sinks, payload: edit.new, note: `${(err as Error).message.split("\n")[0]}; checked on the new text alone` };
	}
}

/** Mirrors kernel-memory.ts: the note's text is the payload, to `memory:<scope>/<namespace>`. */
function memoryEgress(args: Record<string, unknown>): Egress {
	const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
	const sink = memoryResource(String(args.scope ?? DEFAULT_MEMORY_SCOPE), String(args.namespace ?? DEFAULT_MEMORY_NAMESPACE));
	return { operation: "memory.write", sinks: [sink], payload: memoryPayload({ title: String(args.title ?? "").trim(), tags: list(args.tags), content: String(args.content ?? ""), path_hints: list(args.path_hints), metadata: {} }) };
}

async function callEgress(input: FlowCheckInput): Promise<Egress | undefined> {
	const { tool, args } = input;
	if (tool === "web_fetch") return fetchEgress(args);
	if (tool === "write_file" || tool === "edit_file") return writeEgress(tool, args, input.workspace);
	if (tool === "memory_write") return memoryEgress(args);
	if (tool === "shell" && typeof args.command === "string") {
		const shell = await shellFlow(args.command, input);
		return shell.network || (shell.writes?.length ?? 0) > 0 ? shell : undefined;
	}
	return undefined;
}

function verdictLine(v: ReturnType<typeof flowVerdict>): string {
	// The same words a session records for an allowed egress.
	return v.decision === "allow" ? `${describeData(v.label)} is within what ${v.clearance.sink} clears ${describeClearance(v.clearance)}` : v.why;
}

/** Mirrors SessionModelFlow.enter for a tool result that read a secret file. */
function modelCheck(input: FlowCheckInput, registry: SinkRegistry, model: { spec: string; locality: ModelLocality; note?: string }): ModelSinkCheck {
	const sink = llmResource(modelProfile(model.spec));
	const clearance = registry.resolve(sink);
	const setting = input.settings.redact_model_context ?? "untrusted";
	const redacts = setting === "always" || (setting === "untrusted" && clearance.max !== "secret");
	const secret = label("secret", "trusted");
	const v = flowVerdict(clearance, secret, input.ceiling);
	const masked = redacts ? ", with secrets masked" : " as read";
	const [secretResults, why] =
		v.decision === "allow"
			? (["sent", `tool results labelled secret are sent to ${sink}${masked}: ${verdictLine(v)}`] as const)
			: v.decision === "release"
				? (["release", `tool results labelled secret reach ${sink} only under an exact release, else they are withheld: ${v.why}`] as const)
				: (["withheld", `tool results labelled secret are withheld from ${sink}: ${v.why}`] as const);
	return {
		sink,
		locality: model.locality,
		clearance,
		redact_model_context: setting,
		redacts,
		secret_results: secretResults,
		why,
		...(model.note !== undefined ? { note: model.note } : {}),
	};
}

/** Undefined when the call sends nothing out and no model is configured: there is no flow to explain. */
export async function explainFlow(input: FlowCheckInput): Promise<FlowExplanation | undefined> {
	const given = checkedLabel(input.label);
	const model = input.model !== undefined && input.model.trim() !== "" ? modelLocality(input.model, input.env, input.modelProfiles) : undefined;
	const registry = registryFor(input.settings, model && describedModel(model.spec, model.locality));
	const modelSink = model && modelCheck(input, registry, model);
	const egress = await callEgress(input);
	if (egress === undefined) {
		if (modelSink === undefined) return undefined;
		const shell = input.tool === "shell" && typeof input.args.command === "string" ? await shellFlow(input.args.command, input) : undefined;
		const files = shell?.files;
		return { label: given, egress: false, ...(files && files.length > 0 ? { files } : {}), ...(shell?.reads ? { reads: shell.reads } : {}), sinks: [], model: modelSink };
	}
	const redactor = createRedactor({ env: input.env });
	const detected =
		egress.payload !== "" && redactor.redactText(egress.payload) !== egress.payload
			? label("secret", "trusted", { kind: "detected", ref: `${egress.operation} payload` })
			: BOTTOM;
	const payloadLabel = join(given, egress.named ?? BOTTOM, detected);
	const targets = [...egress.sinks.map((sink) => ({ sink, operation: egress.operation })), ...(egress.writes ?? []).map((sink) => ({ sink, operation: "fs.write" as const }))];
	const sinks = targets.map(({ sink, operation }): FlowSinkCheck => {
		const v = flowVerdict(registry.resolve(sink), payloadLabel, input.ceiling);
		const kind = kindOf(sink);
		return {
			operation,
			sink,
			clearance: v.clearance,
			label: payloadLabel,
			decision: v.decision,
			why: verdictLine(v),
			ceiling_bounds: input.ceiling.manifest.sinks.some((p) => kindOf(p) === kind),
		};
	});
	return {
		label: given,
		egress: true,
		...(egress.files && egress.files.length > 0 ? { files: egress.files } : {}),
		...(egress.reads ? { reads: egress.reads } : {}),
		sinks,
		...(egress.note !== undefined ? { note: egress.note } : {}),
		...(modelSink ? { model: modelSink } : {}),
	};
}
