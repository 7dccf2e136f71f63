/**
 * The audit browser: the chain newest first, a page at a time by keyset (`before` the last seq
 * shown), each record's data as text and its diff rendered; verify walks the whole chain and
 * names the first bad record.
 */
import { useCallback, useEffect, useState } from "react";
import type { AuditPage as Page, AuditPageRow, VerifyResult } from "../../src/surfaces/console/console-types.js";
import { getJson, query } from "./api.js";
import { DiffView, JsonView } from "./diff-view.js";
import { href } from "./route.js";
import { shown } from "./shown.js";

function diffOf(data: unknown): string | undefined {
	const record = (data ?? {}) as Record<string, unknown>;
	for (const value of [record.diff, (record.outcome as Record<string, unknown> | undefined)?.diff]) if (typeof value === "string") return value;
	return undefined;
}

function RecordView({ row, bad }: { row: AuditPageRow; bad: boolean }) {
	const diff = diffOf(row.data);
	const { diff: _shown, ...rest } = (row.data ?? {}) as Record<string, unknown>;
	return (
		<article className={`record${bad ? " bad" : ""}`} data-seq={row.seq}>
			<header>
				<strong>#{row.seq}</strong> <code>{shown(row.kind)}</code> {row.time}{" "}
				<a href={href("audit", { session: row.session })}>{row.session.slice(0, 8)}</a> turn {row.turn}
				{row.call_id === undefined ? null : (
					<>
						{" "}
						· <a href={href("explain", { id: row.call_id, session: row.session })}>{row.call_id}</a>
					</>
				)}
			</header>
			<JsonView value={rest} />
			{diff === undefined ? null : <DiffView diff={diff} />}
		</article>
	);
}

export function AuditPage({ initialSession }: { initialSession: string }) {
	const [session, setSession] = useState(initialSession);
	const [pages, setPages] = useState<Page[]>([]);
	const [error, setError] = useState<string | undefined>(undefined);
	const [verify, setVerify] = useState<VerifyResult | "running" | undefined>(undefined);

	const load = useCallback(
		async (before: number | undefined, reset: boolean) => {
			try {
				const page = await getJson<Page>(`/api/audit${query({ session, before, limit: 50 })}`);
				setPages((prev) => (reset ? [page] : [...prev, page]));
				setError(undefined);
			} catch (err) {
				setError(err instanceof Error ? err.message : String(err));
			}
		},
		[session],
	);

	useEffect(() => {
		void load(undefined, true);
	}, [load]);

	const runVerify = async () => {
		setVerify("running");
		try {
			setVerify(await getJson<VerifyResult>("/api/audit/verify"));
		} catch (err) {
			setError(err instanceof Error ? err.message : String(err));
			setVerify(undefined);
		}
	};

	const last = pages[pages.length - 1];
	const badSeq = verify !== undefined && verify !== "running" && !verify.ok ? verify.firstBad.seq : undefined;
	return (
		<section>
			<form className="filters" onSubmit={(e) => e.preventDefault()}>
				<label>
					session <input name="session" value={session} onChange={(e) => setSession(e.target.value.trim())} />
				</label>
				<button type="button" onClick={() => void runVerify()}>
					Verify chain
				</button>
				<span className="verify" data-testid="verify">
					{verify === undefined
						? ""
						: verify === "running"
							? "verifying…"
							: verify.ok
								? `chain valid: ${verify.checked} records`
								: `chain BROKEN at record #${verify.firstBad.seq}: ${shown(verify.firstBad.reason)}`}
				</span>
				{badSeq === undefined ? null : (
					<a href={href("audit", { session: "" })} onClick={() => void load(badSeq + 1, true)}>
						show record #{badSeq}
					</a>
				)}
			</form>
			{error === undefined ? null : <p className="error">{shown(error)}</p>}
			{pages.flatMap((p) => p.records).map((row) => (
				<RecordView key={row.seq} row={row} bad={row.seq === badSeq} />
			))}
			{last?.next === undefined ? (
				<p className="note">{pages.length === 0 ? "" : "start of the chain"}</p>
			) : (
				<button type="button" onClick={() => void load(last.next, false)}>
					Older records
				</button>
			)}
		</section>
	);
}
