/**
 * The crash matrix's harness: runs the real CLI (`warden run`, a scripted model) in a child process
 * that SIGKILLs itself at one durability barrier (WARDEN_CRASH_AT), reopens the state dir for
 * writing with `warden recover` (which runs recovery on open), reopens it a second time, and checks
 * the recovery invariants against what the crash left and what the reopens made of it.
 *
 * A crash point fires the first time it is reached, so which operation it cuts depends on the plan's
 * order. The child is a separate process on purpose: only a real SIGKILL loses exactly what a power
 * cut loses (no finally, no flush, a lease file left behind).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import type { GrantSpec } from "../../kernel/authority/capability.js";
import type { AuditRecord } from "../../kernel/evidence/audit-types.js";
import type { OperationRow } from "../../kernel/operations/operation-types.js";
import type { RecoveryReport } from "../../kernel/operations/recovery.js";
import type { CrashPoint } from "../../store/fault-injection.js";
import { openSqliteStore, toAuditRecords, toOperationRows } from "../../kernel/evidence/store-rows.js";
import type { SessionRow } from "../../store/store.js";

/** bin/warden.js, from src/surfaces/eval (tests) and dist/surfaces/eval (the built CLI) alike. */
export const WARDEN_BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bin", "warden.js");

/** One scripted model answer, as a `scripted:<plan.yaml>` file holds it. */
export interface CrashPlanStep {
	text?: string;
	tool_calls?: { name: string; id?: string; arguments?: unknown }[];
}

export interface CrashCaseOptions {
	point: CrashPoint;
	/** Real path of the workspace the run works in. */
	workspace: string;
	stateDir: string;
	/** A private directory for the plan file and an empty config home. */
	scratch: string;
	steps: CrashPlanStep[];
	/** Default full-access. */
	mode?: string;
	/** Default allow. */
	onAsk?: "allow" | "deny";
	rules?: { allow: string[]; ask: string[]; deny: string[] };
	runDeny?: string[];
	/** Extra environment for the child processes (HOME, say). */
	env?: Record<string, string>;
	/** Workspace-relative file whose lines count shell dispatches (`echo x >> count.txt`). Default count.txt. */
	counter?: string;
	/** Per child process; default 20 s. */
	timeoutMs?: number;
	/** Host grants, written to the (otherwise empty) user config the runs read. */
	grants?: GrantSpec[];
	/**
	 * After both reopens, the crashed session is resumed (`warden run --resume`) with this plan: what
	 * the reopened state dir lets the agent do again. Its operations join the invariants' evidence.
	 */
	retry?: CrashPlanStep[];
}

/** The resumed run after the reopens, when the case has a `retry` plan. */
export interface RetryResult {
	run: ChildResult;
	/** The evidence once it ended. */
	after: EvidenceState;
}

export interface ChildResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** What the state dir held at one moment, read through a read-only store. */
export interface EvidenceState {
	operations: OperationRow[];
	sessions: SessionRow[];
	audit: AuditRecord[];
	/** Lines in the counter file. */
	counterLines: number;
}

export interface Invariant {
	name: string;
	ok: boolean;
	detail: string;
}

export interface CrashCaseResult {
	point: CrashPoint;
	run: ChildResult;
	atCrash: EvidenceState;
	/** What `warden recover --json` reported on the first reopen. */
	recovery: RecoveryReport;
	afterRecovery: EvidenceState;
	afterSecondReopen: EvidenceState;
	/** After the first and after the second reopen: equal when recovery is idempotent. */
	fingerprints: [string, string];
	invariants: Invariant[];
	/** The invariants that do not hold, one line each: empty when the case passed. */
	failures: string[];
	retry?: RetryResult;
}

/** Audit kinds that settle an operation: exactly one per settled operation. */
const SETTLING_KINDS = new Set(["effect", "operation.settled", "operation.abandoned"]);
const PENDING = new Set(["prepared", "dispatched"]);

export function runWarden(args: string[], env: Record<string, string>, timeoutMs: number): Promise<ChildResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [WARDEN_BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d: Buffer) => {
			stdout += d.toString();
		});
		child.stderr.on("data", (d: Buffer) => {
			stderr += d.toString();
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
		child.on("error", reject);
		child.on("close", (code, signal) => {
			clearTimeout(timer);
			resolve({ code, signal, stdout, stderr });
		});
	});
}

function countLines(file: string): number {
	try {
		return readFileSync(file, "utf8").split("\n").filter((l) => l !== "").length;
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
		throw err;
	}
}

/** The state dir's evidence, read without a process lease (so it runs no recovery). */
export async function readEvidence(stateDir: string, counterFile: string): Promise<EvidenceState> {
	const store = openSqliteStore(stateDir, { readOnly: true });
	try {
		return {
			operations: toOperationRows(await store.listOperations({})),
			sessions: await store.listSessions(),
			audit: toAuditRecords(await store.listAudit()),
			counterLines: countLines(counterFile),
		};
	} finally {
		await store.close();
	}
}

/** sha256 over the audit chain's head, every operation row and every session's status. */
export function evidenceFingerprint(state: Pick<EvidenceState, "operations" | "sessions" | "audit">): string {
	const last = state.audit.at(-1);
	const material = {
		head: last === undefined ? null : { seq: last.seq, hash: last.hash },
		operations: [...state.operations].sort((a, b) => a.id.localeCompare(b.id)),
		sessions: state.sessions.map((s) => ({ id: s.id, status: s.status, ended_at: s.ended_at ?? null })).sort((a, b) => a.id.localeCompare(b.id)),
	};
	return createHash("sha256").update(JSON.stringify(material)).digest("hex");
}

function parseRecovery(stdout: string): RecoveryReport | undefined {
	try {
		const value = JSON.parse(stdout.trim()) as RecoveryReport;
		return Array.isArray(value.operations) && Array.isArray(value.interrupted) ? value : undefined;
	} catch {
		return undefined;
	}
}

export interface InvariantInput {
	crashed: boolean;
	atCrash: EvidenceState;
	recovery: RecoveryReport;
	afterRecovery: EvidenceState;
	afterSecondReopen: EvidenceState;
	/** `warden audit verify` exit status after the first reopen. */
	auditVerifyCode: number | null;
	fingerprints: [string, string];
	/** With a retry: the host's grants and the evidence after the resumed run. */
	retry?: { grants: readonly GrantSpec[]; after: EvidenceState };
}

/** The recovery invariants, from observations alone; every one is reported, held or not. */
export function checkRecoveryInvariants(input: InvariantInput): Invariant[] {
	const { atCrash, recovery, afterRecovery: after } = input;
	const out: Invariant[] = [];
	const check = (name: string, problems: string[], held: string) => out.push({ name, ok: problems.length === 0, detail: problems.length === 0 ? held : problems.join("; ") });

	check("crashed", input.crashed ? [] : ["the run was not killed at the crash point (the plan never reached it)"], "the run was killed by SIGKILL");

	// At most one dispatch per intent: every line in the counter file needs a shell operation that reached dispatch.
	const dispatchedShell = after.operations.filter((op) => op.kind === "shell.exec" && op.state !== "prepared" && op.state !== "abandoned").length;
	check(
		"at most one dispatch per intent",
		[
			...(after.counterLines > dispatchedShell ? [`${after.counterLines} counter line(s) but only ${dispatchedShell} dispatched shell operation(s)`] : []),
			...(after.counterLines !== atCrash.counterLines ? [`the counter grew from ${atCrash.counterLines} to ${after.counterLines} lines on reopen`] : []),
			...(input.afterSecondReopen.counterLines !== atCrash.counterLines ? ["the counter changed on the second reopen"] : []),
		],
		`${after.counterLines} counter line(s), ${dispatchedShell} dispatched shell operation(s), none dispatched again`,
	);

	// Every operation the crash left behind is still there, and none went back to an earlier state.
	const afterById = new Map(after.operations.map((op) => [op.id, op]));
	const lost = atCrash.operations.filter((op) => !afterById.has(op.id)).map((op) => `operation ${op.id} vanished`);
	const regressed = atCrash.operations
		.filter((op) => !PENDING.has(op.state) && afterById.get(op.id)?.state !== op.state)
		.map((op) => `settled operation ${op.id} changed from ${op.state} to ${afterById.get(op.id)?.state}`);
	check("no operation lost or re-settled", [...lost, ...regressed], `${after.operations.length} operation(s) kept`);

	// Exactly one settling audit record per settled operation: its audit_seq, naming it.
	const bySeq = new Map(after.audit.map((r) => [r.seq, r]));
	const settling = new Map<string, number>();
	for (const r of after.audit) {
		if (!SETTLING_KINDS.has(r.kind) || typeof r.data.operation !== "string") continue;
		settling.set(r.data.operation, (settling.get(r.data.operation) ?? 0) + 1);
	}
	const auditProblems: string[] = [];
	for (const op of after.operations) {
		if (PENDING.has(op.state)) continue;
		const n = settling.get(op.id) ?? 0;
		if (n !== 1) auditProblems.push(`operation ${op.id} (${op.state}) has ${n} settling audit records`);
		const own = op.audit_seq === undefined ? undefined : bySeq.get(op.audit_seq);
		if (own === undefined || own.data.operation !== op.id) auditProblems.push(`operation ${op.id}'s audit_seq ${op.audit_seq ?? "none"} does not name a record of it`);
	}
	for (const [id] of settling) if (!afterById.has(id)) auditProblems.push(`an audit record settles operation ${id}, which does not exist`);
	if (input.auditVerifyCode !== 0) auditProblems.push(`warden audit verify exited ${input.auditVerifyCode}`);
	check("no lost or duplicated audit record", auditProblems, "one settling record per settled operation; audit chain valid");

	// What the crash left pending is settled now and named by the report and the recovery.completed record.
	const pending = atCrash.operations.filter((op) => PENDING.has(op.state));
	const reported = new Map(recovery.operations.map((o) => [o.id, o]));
	const completed = after.audit.filter((r) => r.kind === "recovery.completed");
	const named = new Set(completed.flatMap((r) => (Array.isArray(r.data.operations) ? (r.data.operations as { id: string }[]).map((o) => o.id) : [])));
	const surfaced: string[] = [];
	for (const op of pending) {
		const now = afterById.get(op.id);
		const by = now?.outcome?.by;
		if (op.state === "prepared" && now?.state !== "abandoned") surfaced.push(`prepared operation ${op.id} is ${now?.state}, not abandoned`);
		if (op.state === "dispatched") {
			if (op.kind === "shell.exec" || op.kind === "net.fetch") {
				if (now?.state !== "unknown") surfaced.push(`dispatched ${op.kind} ${op.id} is ${now?.state}, not unknown`);
			} else if (now?.state !== "unknown" && !(typeof by === "string" && /content hash|gone/.test(by))) {
				surfaced.push(`dispatched ${op.kind} ${op.id} is ${now?.state} without a content-hash reconciliation`);
			}
		}
		if (reported.get(op.id)?.state !== now?.state) surfaced.push(`warden recover does not report ${op.id} as ${now?.state}`);
		if (!named.has(op.id)) surfaced.push(`no recovery.completed record names ${op.id}`);
	}
	const stillPending = after.operations.filter((op) => PENDING.has(op.state) && !recovery.unreadable.includes(op.id));
	for (const op of stillPending) surfaced.push(`operation ${op.id} is still ${op.state}`);
	const active = atCrash.sessions.filter((s) => s.status === "active").map((s) => s.id);
	for (const id of active) {
		if (after.sessions.find((s) => s.id === id)?.status !== "interrupted") surfaced.push(`session ${id} was active and is not interrupted`);
		if (!recovery.interrupted.includes(id)) surfaced.push(`warden recover does not name interrupted session ${id}`);
	}
	if ((pending.length > 0 || active.length > 0) && completed.length !== 1) surfaced.push(`${completed.length} recovery.completed records, expected 1`);
	check(
		"unknown effects surfaced",
		surfaced,
		`${pending.length} pending operation(s) settled and named (${recovery.operations.filter((o) => o.state === "unknown").length} unknown), ${active.length} session(s) interrupted`,
	);

	const [first, second] = input.fingerprints;
	check(
		"second reopen changes nothing",
		first === second ? [] : [`evidence fingerprint ${first.slice(0, 12)} became ${second.slice(0, 12)}`],
		`fingerprint ${first.slice(0, 12)} twice`,
	);
	if (input.retry) out.push(oneUseInvariant(input.retry.grants, input.retry.after));
	return out;
}

/**
 * No one-use authority was handed out twice, across the crash, the reopens and the resumed run: each
 * counted grant's uses recorded in intents stay within its count, and no lease is recorded by two calls.
 */
function oneUseInvariant(grants: readonly GrantSpec[], after: EvidenceState): Invariant {
	const problems: string[] = [];
	const spent = new Map<string, number>();
	const leaseCalls = new Map<string, Set<string>>();
	for (const op of after.operations) {
		for (const use of op.consumed?.grants ?? []) spent.set(use.grant, (spent.get(use.grant) ?? 0) + 1);
		const lease = op.consumed?.lease;
		if (lease !== undefined) leaseCalls.set(lease, (leaseCalls.get(lease) ?? new Set()).add(`${op.session}/${op.call_id}`));
	}
	for (const g of grants) {
		if (g.id === undefined || g.uses === undefined) continue;
		const n = spent.get(g.id) ?? 0;
		if (n > g.uses) problems.push(`grant ${g.id} (uses: ${g.uses}) was spent ${n} times`);
	}
	for (const [lease, calls] of leaseCalls) if (calls.size > 1) problems.push(`lease ${lease} was redeemed by ${calls.size} calls`);
	const uses = [...spent.values()].reduce((a, b) => a + b, 0);
	return { name: "no one-use authority handed out twice", ok: problems.length === 0, detail: problems.length === 0 ? `${uses} counted use(s) recorded, within every count` : problems.join("; ") };
}

/** One crash case: run to the crash point, reopen twice, check the invariants. */
export async function runCrashCase(options: CrashCaseOptions): Promise<CrashCaseResult> {
	const timeoutMs = options.timeoutMs ?? 20_000;
	const counterFile = join(options.workspace, options.counter ?? "count.txt");
	mkdirSync(join(options.scratch, "config", "warden"), { recursive: true });
	if (options.grants) writeFileSync(join(options.scratch, "config", "warden", "config.yaml"), stringify({ grants: options.grants }));
	const plan = join(options.scratch, "plan.yaml");
	writeFileSync(plan, stringify({ steps: options.steps }));
	// No developer config, no inherited state dir or model: the child sees only what the case gives it.
	const env = { WARDEN_HOME: "", WARDEN_MODEL: "", WARDEN_CONFIG: "", XDG_CONFIG_HOME: join(options.scratch, "config"), ...options.env };
	const rules = options.rules ?? { allow: [], ask: [], deny: [] };
	// The crashed run's rules hold for the resumed one too.
	const policyArgs = [
		...rules.allow.flatMap((r) => ["--allow", r]),
		...rules.ask.flatMap((r) => ["--ask", r]),
		...(rules.deny.length > 0 ? ["--rules", writeRules(options.scratch, rules.deny)] : []),
		...(options.runDeny ?? []).flatMap((r) => ["--deny", r]),
	];
	const args = [
		"run",
		`crash matrix: ${options.point}`,
		"--model",
		`scripted:${plan}`,
		"--workspace",
		options.workspace,
		"--state-dir",
		options.stateDir,
		"--mode",
		options.mode ?? "full-access",
		"--on-ask",
		options.onAsk ?? "allow",
		"--json",
		"--no-project-config",
		...policyArgs,
	];
	const run = await runWarden(args, { ...env, WARDEN_CRASH_AT: options.point }, timeoutMs);
	const atCrash = await readEvidence(options.stateDir, counterFile);

	const reopen = () => runWarden(["recover", "--state-dir", options.stateDir, "--json"], env, timeoutMs);
	const first = await reopen();
	const recovery = parseRecovery(first.stdout);
	if (first.code !== 0 || recovery === undefined) throw new Error(`warden recover exited ${first.code}${first.signal ? ` (${first.signal})` : ""}: ${first.stderr.trim() || first.stdout.trim()}`);
	const afterRecovery = await readEvidence(options.stateDir, counterFile);
	const verify = await runWarden(["audit", "verify", "--state-dir", options.stateDir], env, timeoutMs);
	const second = await reopen();
	if (second.code !== 0) throw new Error(`the second warden recover exited ${second.code}: ${second.stderr.trim()}`);
	const afterSecondReopen = await readEvidence(options.stateDir, counterFile);
	const fingerprints: [string, string] = [evidenceFingerprint(afterRecovery), evidenceFingerprint(afterSecondReopen)];

	let retry: RetryResult | undefined;
	const session = afterSecondReopen.sessions.find((s) => s.parent_session === undefined)?.id;
	if (options.retry && session !== undefined) {
		const retryPlan = join(options.scratch, "retry.yaml");
		writeFileSync(retryPlan, stringify({ steps: options.retry }));
		const resumed = await runWarden(
			["run", "crash matrix: try again", "--resume", session, "--model", `scripted:${retryPlan}`, "--state-dir", options.stateDir, "--on-ask", options.onAsk ?? "allow", "--json", "--no-project-config", ...policyArgs],
			env,
			timeoutMs,
		);
		retry = { run: resumed, after: await readEvidence(options.stateDir, counterFile) };
	}

	const invariants = checkRecoveryInvariants({
		crashed: run.signal === "SIGKILL",
		atCrash,
		recovery,
		afterRecovery,
		afterSecondReopen,
		auditVerifyCode: verify.code,
		fingerprints,
		...(retry ? { retry: { grants: options.grants ?? [], after: retry.after } } : {}),
	});
	if (options.retry && !retry) invariants.push({ name: "no one-use authority handed out twice", ok: false, detail: "the crashed session could not be found to resume" });
	const failures = invariants.filter((i) => !i.ok).map((i) => `${i.name}: ${i.detail}`);
	return { point: options.point, run, atCrash, recovery, afterRecovery, afterSecondReopen, fingerprints, invariants, failures, ...(retry ? { retry } : {}) };
}

/** Host deny rules go through a rules file: `--deny` on the command line is the run-level deny. */
function writeRules(scratch: string, deny: string[]): string {
	const file = join(scratch, "rules.yaml");
	writeFileSync(file, stringify({ deny }));
	return file;
}

/** The matrix's plan: a create, an edit, a counted shell dispatch, then a final text. */
export function standardCrashPlan(order: "write-first" | "shell-first" = "write-first"): CrashPlanStep[] {
	const create = { tool_calls: [{ name: "write_file", arguments: { path: "notes.txt", content: "first line\n" } }] };
	const edit = { tool_calls: [{ name: "edit_file", arguments: { path: "notes.txt", old: "first line", new: "edited line" } }] };
	const shell = { tool_calls: [{ name: "shell", arguments: { command: "echo x >> count.txt" } }] };
	const done = { text: "done" };
	return order === "write-first" ? [create, edit, shell, done] : [shell, create, edit, done];
}
