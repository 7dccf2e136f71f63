/**
 * An MCP server's request for input, as a form: the server's message, one control per field it asks
 * for (text, number, yes/no, a choice or several), required ones marked, defaults filled in; and the
 * three answers MCP knows (send, decline, cancel). Every string the server wrote is drawn through the
 * display rule, so its message cannot hide or reorder what it says. The server checks nothing here:
 * the console's server checks the content against the schema, and a refusal is shown as its line.
 */
import { useState } from "react";
import type { ElicitAction, PendingAsk } from "../../src/surfaces/console/console-types.js";
import { postJson } from "./api.js";
import { href } from "./route.js";
import { shown } from "./shown.js";

type Field = NonNullable<PendingAsk["elicitation"]>["fields"][number];
/** What a control holds: the text of an input, a checkbox's state, or the choices ticked. */
type Typed = string | boolean | string[];

function initial(field: Field): Typed {
	if (field.type === "boolean") return field.default === true;
	if (field.type === "string[]") return Array.isArray(field.default) ? field.default.map(String) : [];
	return field.default === undefined ? "" : String(field.default);
}

/** The content sent for the typed values: numbers as numbers, empty optional fields left out. */
function contentOf(fields: readonly Field[], typed: Record<string, Typed>): Record<string, unknown> {
	const content: Record<string, unknown> = {};
	for (const field of fields) {
		const value = typed[field.name];
		if (field.type === "boolean") content[field.name] = value === true;
		else if (field.type === "string[]") {
			const list = Array.isArray(value) ? value : String(value ?? "").split(",").map((v) => v.trim()).filter((v) => v !== "");
			if (list.length > 0 || field.required) content[field.name] = list;
		} else {
			const text = typeof value === "string" ? value : "";
			if (text === "" && !field.required) continue;
			content[field.name] = field.type === "number" || field.type === "integer" ? (text === "" ? text : Number(text)) : text;
		}
	}
	return content;
}

function FieldControl({ field, value, onChange }: { field: Field; value: Typed; onChange: (v: Typed) => void }) {
	const id = `elicit-${field.name}`;
	const label = (
		<label htmlFor={id}>
			<code>{shown(field.name)}</code>
			{field.required ? <span className="required"> (required)</span> : null}
			{field.about === "" ? null : <span className="about"> — {shown(field.about)}</span>}
		</label>
	);
	if (field.type === "boolean") {
		return (
			<p className="field" data-field={field.name}>
				<input id={id} name={field.name} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} /> {label}
			</p>
		);
	}
	if (field.type === "string[]" && field.choices) {
		const ticked = Array.isArray(value) ? value : [];
		return (
			<fieldset className="field" data-field={field.name}>
				<legend>{label}</legend>
				{field.choices.map((choice) => (
					<label key={choice}>
						<input type="checkbox" name={field.name} value={choice} checked={ticked.includes(choice)} onChange={(e) => onChange(e.target.checked ? [...ticked, choice] : ticked.filter((c) => c !== choice))} /> {shown(choice)}
					</label>
				))}
			</fieldset>
		);
	}
	if (field.choices) {
		return (
			<p className="field" data-field={field.name}>
				{label}{" "}
				<select id={id} name={field.name} value={typeof value === "string" ? value : ""} required={field.required} onChange={(e) => onChange(e.target.value)}>
					{field.required ? null : <option value="">(none)</option>}
					{field.choices.map((choice) => (
						<option key={choice} value={choice}>
							{shown(choice)}
						</option>
					))}
				</select>
			</p>
		);
	}
	const numeric = field.type === "number" || field.type === "integer";
	return (
		<p className="field" data-field={field.name}>
			{label}{" "}
			<input
				id={id}
				name={field.name}
				type={numeric ? "number" : "text"}
				step={field.type === "integer" ? 1 : "any"}
				placeholder={field.type === "string[]" ? "values, separated by commas" : undefined}
				required={field.required}
				value={typeof value === "string" ? value : Array.isArray(value) ? value.join(", ") : ""}
				onChange={(e) => onChange(e.target.value)}
			/>
		</p>
	);
}

const DONE: Record<ElicitAction, string> = { accept: "Sent", decline: "Declined", cancel: "Cancelled" };

export function ElicitationCard({ ask, onAnswered }: { ask: PendingAsk; onAnswered: (id: string, line: string) => void }) {
	const request = ask.elicitation;
	const fields = request?.fields ?? [];
	const [typed, setTyped] = useState<Record<string, Typed>>(() => Object.fromEntries(fields.map((f) => [f.name, initial(f)])));
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | undefined>(undefined);
	const server = shown(request?.server ?? ask.resource);
	const answer = async (action: ElicitAction) => {
		setBusy(true);
		setError(undefined);
		try {
			await postJson(`/api/asks/${encodeURIComponent(ask.id)}`, action === "accept" ? { answer: action, content: contentOf(fields, typed) } : { answer: action });
			onAnswered(ask.id, `${DONE[action]}: input for MCP server ${server}`);
		} catch (err) {
			setError(err instanceof Error ? err.message : String(err));
		} finally {
			setBusy(false);
		}
	};
	return (
		<article className="ask elicitation" data-ask-id={ask.id}>
			<header>
				<strong>Request for input</strong> from MCP server <code>{server}</code>
				<span className="meta">
					session <a href={href("feed", { session: ask.session })}>{ask.session.slice(0, 8)}</a> · {ask.created_at}
					{ask.expires_at === undefined ? "" : ` · expires ${ask.expires_at}`}
				</span>
			</header>
			<p className="reason" data-testid="elicitation-message">
				{shown(request?.message ?? ask.reason)}
			</p>
			<p className="note">What you send goes to this server only; the record names the fields, not their values.</p>
			<form
				onSubmit={(e) => {
					e.preventDefault();
					void answer("accept");
				}}
			>
				{fields.map((field) => (
					<FieldControl key={field.name} field={field} value={typed[field.name] ?? initial(field)} onChange={(v) => setTyped((t) => ({ ...t, [field.name]: v }))} />
				))}
				<div className="answers">
					<button type="submit" disabled={busy} className="allow">
						Send
					</button>
					<button type="button" disabled={busy} className="deny" onClick={() => void answer("decline")}>
						Decline
					</button>
					<button type="button" disabled={busy} className="deny" onClick={() => void answer("cancel")}>
						Cancel
					</button>
				</div>
			</form>
			{error === undefined ? null : <p className="error">{error}</p>}
		</article>
	);
}
