/**
 * The approvals queue: each pending ask with what a terminal prompt shows (tool, resource, the exact
 * arguments, the reason, the diff, the rule "always" would keep) and the four answers.
 */
import { useState } from "react";
import { ASK_ANSWERS, type AskAnswer, type PendingAsk } from "../../src/surfaces/console/console-types.js";
import { postJson } from "./api.js";
import { DiffView, JsonView } from "./diff-view.js";
import { ElicitationCard } from "./elicitation-form.js";
import { usePendingAsks } from "./live-asks.js";
import { href } from "./route.js";
import { shown, shownBlock } from "./shown.js";

/** The arguments that are what runs or is touched, shown whole above the rest: the command as the decision read it. */
const SUBJECTS = [
	{ key: "command", title: "Runs exactly" },
	{ key: "path", title: "Path" },
	{ key: "url", title: "URL" },
] as const;

const LABELS: Record<AskAnswer, string> = { allow_once: "Allow once", allow_always: "Always allow", deny: "Deny", deny_always: "Always deny" };

function AskCard({ ask, onAnswered }: { ask: PendingAsk; onAnswered: (id: string, line: string) => void }) {
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | undefined>(undefined);
	const answer = async (choice: AskAnswer) => {
		setBusy(true);
		setError(undefined);
		try {
			await postJson(`/api/asks/${encodeURIComponent(ask.id)}`, { answer: choice });
			onAnswered(ask.id, `${LABELS[choice]}: ${shown(ask.tool)} ${shown(ask.resource)}`);
		} catch (err) {
			setError(shown(err instanceof Error ? err.message : String(err)));
		} finally {
			setBusy(false);
		}
	};
	const args = (ask.arguments ?? {}) as Record<string, unknown>;
	return (
		<article className="ask" data-ask-id={ask.id}>
			<header>
				<strong>{ask.kind === "release" ? "Release" : "Approval"}</strong> <code>{shown(ask.tool)}</code> on <code data-testid="ask-resource">{shown(ask.resource)}</code>
				<span className="meta">
					session <a href={href("feed", { session: ask.session })}>{ask.session.slice(0, 8)}</a> · call{" "}
					<a href={href("explain", { id: ask.call_id, session: ask.session })}>{ask.call_id}</a> · {ask.created_at}
					{ask.expires_at === undefined ? "" : ` · expires ${ask.expires_at}`}
				</span>
			</header>
			<p className="reason">{shown(ask.reason)}</p>
			{SUBJECTS.map(({ key, title }) => {
				const value = args[key];
				return typeof value === "string" ? (
					<div key={key}>
						<h4>{title}</h4>
						<pre className="subject" data-testid={`ask-${key}`}>
							{shownBlock(value)}
						</pre>
					</div>
				) : null;
			})}
			<h4>Arguments</h4>
			<JsonView value={ask.arguments} />
			{ask.diff === undefined ? null : (
				<>
					<h4>Diff</h4>
					<DiffView diff={ask.diff} />
				</>
			)}
			{ask.release === undefined ? null : (
				<p>
					release of <code>{ask.release.digest}</code> ({shown(ask.release.labels.join(", "))}) to <code>{shown(ask.release.sink)}</code>
				</p>
			)}
			{ask.always_rule === undefined ? null : (
				<p className="rule">
					“Always” keeps the rule <code>{shown(ask.always_rule)}</code>
				</p>
			)}
			<div className="answers">
				{ASK_ANSWERS.map((choice) => (
					<button key={choice} type="button" disabled={busy} className={choice.startsWith("deny") ? "deny" : "allow"} onClick={() => void answer(choice)}>
						{LABELS[choice]}
					</button>
				))}
			</div>
			{error === undefined ? null : <p className="error">{error}</p>}
		</article>
	);
}

export function ApprovalsPage() {
	const { asks, live } = usePendingAsks();
	const [done, setDone] = useState<{ id: string; line: string }[]>([]);
	return (
		<section>
			<p className="note">
				{asks === undefined ? "loading…" : `${asks.length} pending`} {live ? "" : "(reconnecting)"}
			</p>
			{done.length === 0 ? null : (
				<ul className="answered" data-testid="answered">
					{done.map((d) => (
						<li key={d.id}>{d.line}</li>
					))}
				</ul>
			)}
			{(asks ?? []).map((ask) =>
				ask.kind === "elicitation" ? (
					<ElicitationCard key={ask.id} ask={ask} onAnswered={(id, line) => setDone((d) => [...d, { id, line }])} />
				) : (
					<AskCard key={ask.id} ask={ask} onAnswered={(id, line) => setDone((d) => [...d, { id, line }])} />
				),
			)}
		</section>
	);
}
