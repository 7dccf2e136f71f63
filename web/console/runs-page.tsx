/** Sessions and task runs; runs that need attention first, each with Resolve (recorded as the console's). */
import { useCallback, useEffect, useState } from "react";
import type { RunView, SessionRow } from "../../src/surfaces/console/console-types.js";
import { getJson, postJson } from "./api.js";
import { href } from "./route.js";
import { shown } from "./shown.js";

export function RunsPage() {
	const [runs, setRuns] = useState<RunView[] | undefined>(undefined);
	const [sessions, setSessions] = useState<SessionRow[] | undefined>(undefined);
	const [message, setMessage] = useState<string | undefined>(undefined);

	const load = useCallback(async () => {
		try {
			const [r, s] = await Promise.all([getJson<RunView[]>("/api/runs"), getJson<SessionRow[]>("/api/sessions")]);
			setRuns(r);
			setSessions(s);
		} catch (err) {
			setMessage(err instanceof Error ? err.message : String(err));
		}
	}, []);
	useEffect(() => {
		void load();
	}, [load]);

	const resolve = async (run: RunView) => {
		try {
			const result = await postJson<{ state: string }>(`/api/runs/${encodeURIComponent(run.id)}/resolve`, {});
			setMessage(`run ${run.id} resolved: now ${result.state}`);
		} catch (err) {
			setMessage(err instanceof Error ? err.message : String(err));
		}
		await load();
	};

	return (
		<section>
			{message === undefined ? null : (
				<p className="note" data-testid="runs-message">
					{shown(message)}
				</p>
			)}
			<h3>Task runs</h3>
			<table className="runs">
				<thead>
					<tr>
						<th>run</th>
						<th>state</th>
						<th>session</th>
						<th>updated</th>
						<th>needs attention for</th>
						<th />
					</tr>
				</thead>
				<tbody>
					{(runs ?? []).map((run) => (
						<tr key={run.id} data-run-id={run.id} className={run.open === undefined ? "" : "attention"}>
							<td>{run.id}</td>
							<td>{run.open === undefined ? run.state : "needs_attention"}</td>
							<td>
								<a href={href("feed", { session: run.session })}>{run.session.slice(0, 8)}</a>
							</td>
							<td>{run.updated_at}</td>
							<td>{shown(run.open ?? "")}</td>
							<td>
								{run.open === undefined ? null : (
									<button type="button" onClick={() => void resolve(run)}>
										Resolve
									</button>
								)}
							</td>
						</tr>
					))}
				</tbody>
			</table>
			<h3>Sessions</h3>
			<table className="sessions">
				<thead>
					<tr>
						<th>session</th>
						<th>status</th>
						<th>turns</th>
						<th>mode</th>
						<th>model</th>
						<th>workspace</th>
						<th>started</th>
					</tr>
				</thead>
				<tbody>
					{(sessions ?? []).map((s) => (
						<tr key={s.id} data-session-id={s.id}>
							<td>
								<a href={href("feed", { session: s.id })}>{s.id.slice(0, 8)}</a> · <a href={href("audit", { session: s.id })}>audit</a>
							</td>
							<td>{s.status}</td>
							<td>{s.turns}</td>
							<td>{shown(s.mode)}</td>
							<td>{shown(s.model)}</td>
							<td>{shown(s.workspace)}</td>
							<td>{s.created_at}</td>
						</tr>
					))}
				</tbody>
			</table>
		</section>
	);
}
