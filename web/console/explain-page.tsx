/** The operation tree of a call (or a model call's context manifest), as `warden explain` prints it. */
import { useEffect, useState } from "react";
import type { ExplainView } from "../../src/surfaces/console/console-types.js";
import { getJson, query } from "./api.js";
import { JsonView } from "./diff-view.js";
import { href } from "./route.js";
import { shown } from "./shown.js";

export function ExplainPage({ id, session }: { id: string; session: string }) {
	const [input, setInput] = useState({ id, session });
	const [view, setView] = useState<ExplainView | undefined>(undefined);
	const [error, setError] = useState<string | undefined>(undefined);
	const [showJson, setShowJson] = useState(false);

	useEffect(() => {
		setInput({ id, session });
		setView(undefined);
		setError(undefined);
		if (id === "") return;
		getJson<ExplainView>(`/api/explain/${encodeURIComponent(id)}${query({ session })}`)
			.then(setView)
			.catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)));
	}, [id, session]);

	return (
		<section>
			<form
				className="filters"
				onSubmit={(e) => {
					e.preventDefault();
					window.location.hash = href("explain", input);
				}}
			>
				<label>
					call, model call or audit seq <input name="id" value={input.id} placeholder="call_1_1_1" onChange={(e) => setInput({ ...input, id: e.target.value.trim() })} />
				</label>
				<label>
					session <input name="session" value={input.session} onChange={(e) => setInput({ ...input, session: e.target.value.trim() })} />
				</label>
				<button type="submit">Explain</button>
				<label>
					<input type="checkbox" checked={showJson} onChange={(e) => setShowJson(e.target.checked)} /> as data
				</label>
			</form>
			{error === undefined ? null : <p className="error">{shown(error)}</p>}
			{view === undefined ? null : showJson ? <JsonView value={view.tree} /> : <pre className="tree" data-testid="explain-text">{view.text}</pre>}
		</section>
	);
}
