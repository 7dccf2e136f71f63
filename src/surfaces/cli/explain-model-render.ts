/** `warden explain <model call>`'s text form: the call, then every item of its context manifest by disposition. */
import type { ContextLink } from "../../runtime/explain-model.js";
import type { ModelCallExplanation } from "../../runtime/explain.js";
import type { ManifestItem } from "../../runtime/context/context-manifest.js";
import type { Label } from "../../kernel/flow/label.js";
import { shownLines } from "./shown-lines.js";

const ORDER: readonly ManifestItem["disposition"][] = ["verbatim", "summary", "omitted"];

function labelText(label: Label | undefined): string {
	return label ? `${label.sensitivity}/${label.integrity}` : "?";
}

/** One line for a tool call's proposing model call: how full its context was and where the manifest is. */
export function contextLine(c: ContextLink): string {
	const t = c.totals;
	return `context ${c.tokens}/${c.window} tokens: ${t.verbatim} verbatim, ${t.summary} summary, ${t.summarised} summarised, ${t.omitted} omitted · manifest [audit #${c.audit_seq}]${c.digest_ok ? "" : " DIGEST MISMATCH"} (warden explain ${c.model_call})`;
}

/** The model call as a person reads it: its lines through the display rule. */
export function shownModelCall(m: ModelCallExplanation): string {
	return shownLines(modelCallLines(m));
}

/** The model call's lines as written, before the display rule (a surface that draws them applies its own). */
export function renderModelCall(m: ModelCallExplanation): string {
	return `${modelCallLines(m).join("\n")}\n`;
}

function modelCallLines(m: ModelCallExplanation): string[] {
	const lines: string[] = [];
	const add = (depth: number, text: string) => lines.push(`${"  ".repeat(depth)}${text}`);
	const what = m.purpose === "compaction" ? `compaction ${m.step}'s summarising call` : `step ${m.step}`;
	add(0, `model call ${m.model_call} · session ${m.session} · turn ${m.turn} ${what}${m.llm ? ` [audit #${m.llm.audit_seq}]` : ""}`);
	if (m.llm) add(1, `${m.llm.spec ?? "?"}: ${m.llm.outcome ?? "?"}${m.llm.tool_calls === undefined ? "" : `, ${m.llm.tool_calls} tool call(s)`}${m.llm.usage ? ` · usage ${JSON.stringify(m.llm.usage)}` : ""}`);
	const manifest = m.manifest;
	if (manifest) {
		add(1, `context ${manifest.tokens} tokens (${manifest.count_method}) of a ${manifest.window}-token window, compaction limit ${manifest.limit} · manifest [audit #${manifest.audit_seq}] sha256 ${manifest.digest.slice(0, 16)}…${manifest.digest_ok ? " verified" : " MISMATCH"}`);
		for (const disposition of ORDER) {
			const items = manifest.items.filter((i) => i.disposition === disposition);
			if (items.length === 0) continue;
			add(1, `${disposition} (${items.length})`);
			for (const i of items) {
				const parts = [i.ref, i.role, labelText(manifest.labels[i.label]), i.tokens === undefined ? undefined : `${i.tokens} tok`, i.covers ? `covers ${i.covers} (${i.covered ?? 0})` : undefined, i.call_ids?.length ? `calls ${i.call_ids.join(", ")}` : undefined].filter((p) => p !== undefined);
				add(2, `${parts.join(" · ")} — ${i.why}`);
			}
		}
		if (m.summarised.length > 0) {
			add(1, `summarised (${m.summarised.length}), from the compactions' records`);
			for (const i of m.summarised) {
				const parts = [i.ref, i.role, labelText(i.label), `into ${i.into}`, i.call_ids?.length ? `calls ${i.call_ids.join(", ")}` : undefined].filter((p) => p !== undefined);
				add(2, `${parts.join(" · ")} [audit #${i.compaction_seq}]`);
			}
		}
	}
	if (m.complete) add(0, "evidence complete");
	else {
		add(0, `evidence INCOMPLETE: ${m.missing.length} missing link(s)`);
		for (const x of m.missing) add(1, `- ${x}`);
	}
	return lines;
}
