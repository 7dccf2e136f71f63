/**
 * The live feed: every event of every session of the state dir as it is appended, from any
 * process. The server resumes from the last id the page saw (EventSource's Last-Event-ID on a
 * reconnect, `after` when the operator resumes a paused feed), so nothing is missed or shown twice.
 */
import { useEffect, useRef, useState } from "react";
import type { FeedItem } from "../../src/surfaces/console/console-types.js";
import { query } from "./api.js";
import { href } from "./route.js";
import { shownClipped } from "./shown.js";

/** Events kept on the page; older ones scroll off (the audit page has them all). */
const KEEP = 2000;

interface Filter {
	session: string;
	kind: string;
	decision: string;
}

function summary(item: FeedItem): string {
	const payload = ((item.event as { payload?: Record<string, unknown> }).payload ?? {}) as Record<string, unknown>;
	const parts: string[] = [];
	for (const key of ["tool", "decision", "effect", "resource", "status", "reason", "error", "text", "input"]) {
		const value = payload[key];
		if (typeof value === "string" && value !== "") parts.push(`${key}=${shownClipped(value, 120)}`);
	}
	return parts.join("  ");
}

function callOf(item: FeedItem): string | undefined {
	const id = (item.event as { payload?: { call_id?: unknown } }).payload?.call_id;
	return typeof id === "string" ? id : undefined;
}

export function FeedPage({ initialSession }: { initialSession: string }) {
	const [filter, setFilterState] = useState<Filter>({ session: initialSession, kind: "", decision: "" });
	const [items, setItems] = useState<FeedItem[]>([]);
	const [status, setStatus] = useState("connecting");
	const [paused, setPaused] = useState(false);
	const last = useRef<number | undefined>(undefined);

	// A new filter starts a new feed: the ids seen under the old one say nothing about the new one.
	const setFilter = (next: Filter) => {
		setItems([]);
		last.current = undefined;
		setFilterState(next);
	};

	useEffect(() => {
		if (paused) {
			setStatus("paused");
			return;
		}
		const source = new EventSource(`/api/feed${query({ ...filter, after: last.current })}`);
		source.onopen = () => setStatus("live");
		source.onerror = () => setStatus(source.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
		source.addEventListener("feed", (message) => {
			const item = JSON.parse((message as MessageEvent<string>).data) as FeedItem;
			// The server never repeats an id; this guards the page's own state across a resume.
			if (last.current !== undefined && item.id <= last.current) return;
			last.current = item.id;
			setItems((prev) => {
				const next = prev.length >= KEEP ? prev.slice(prev.length - KEEP + 1) : prev.slice();
				next.push(item);
				return next;
			});
		});
		return () => source.close();
	}, [filter, paused]);

	return (
		<section>
			<form className="filters" onSubmit={(e) => e.preventDefault()}>
				<label>
					session <input name="session" value={filter.session} onChange={(e) => setFilter({ ...filter, session: e.target.value.trim() })} />
				</label>
				<label>
					kind <input name="kind" value={filter.kind} placeholder="tool.proposed" onChange={(e) => setFilter({ ...filter, kind: e.target.value.trim() })} />
				</label>
				<label>
					decision
					<select name="decision" value={filter.decision} onChange={(e) => setFilter({ ...filter, decision: e.target.value })}>
						<option value="">any</option>
						<option value="allow">allow</option>
						<option value="ask">ask</option>
						<option value="deny">deny</option>
					</select>
				</label>
				<button type="button" onClick={() => setPaused(!paused)}>
					{paused ? "Resume" : "Pause"}
				</button>
				<span className={`status ${status}`} data-testid="feed-status">
					{status}
				</span>
				<span className="count" data-testid="feed-count">
					{items.length} events
				</span>
			</form>
			<table className="feed">
				<thead>
					<tr>
						<th>#</th>
						<th>time</th>
						<th>session</th>
						<th>turn</th>
						<th>kind</th>
						<th>call</th>
						<th>details</th>
					</tr>
				</thead>
				<tbody>
					{items
						.slice()
						.reverse()
						.map((item) => {
							const call = callOf(item);
							return (
								<tr key={item.id} data-event-id={item.id} data-kind={item.kind}>
									<td>{item.id}</td>
									<td>{item.time.slice(11, 23)}</td>
									<td title={item.session}>
										<a href={href("feed", { session: item.session })} onClick={() => setFilter({ ...filter, session: item.session })}>
											{item.session.slice(0, 8)}
										</a>
									</td>
									<td>{item.turn}</td>
									<td className={`kind ${item.kind.replace(/\./g, "-")}`}>{item.kind}</td>
									<td>{call === undefined ? "" : <a href={href("explain", { id: call, session: item.session })}>{call}</a>}</td>
									<td className="details">{summary(item)}</td>
								</tr>
							);
						})}
				</tbody>
			</table>
		</section>
	);
}
