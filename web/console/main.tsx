/** The operator console's page: one React root, five pages routed by the URL's hash. */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ApprovalsPage } from "./approvals-page.js";
import { AuditPage } from "./audit-page.js";
import { ExplainPage } from "./explain-page.js";
import { FeedPage } from "./feed-page.js";
import { PAGES, href, useRoute } from "./route.js";
import { RunsPage } from "./runs-page.js";

function App() {
	const { page, params } = useRoute();
	const session = params.get("session") ?? "";
	return (
		<>
			<nav>
				<span className="brand">Warden console</span>
				{PAGES.map((p) => (
					<a key={p.id} href={href(p.id)} className={p.id === page ? "active" : ""} data-page={p.id}>
						{p.title}
					</a>
				))}
			</nav>
			<main data-page={page}>
				<h2>{PAGES.find((p) => p.id === page)?.title}</h2>
				{page === "feed" ? <FeedPage key={session} initialSession={session} /> : null}
				{page === "approvals" ? <ApprovalsPage /> : null}
				{page === "audit" ? <AuditPage key={session} initialSession={session} /> : null}
				{page === "explain" ? <ExplainPage id={params.get("id") ?? ""} session={session} /> : null}
				{page === "runs" ? <RunsPage /> : null}
			</main>
		</>
	);
}

const root = document.getElementById("root");
if (root === null) throw new Error("the page has no #root element");
createRoot(root).render(
	<StrictMode>
		<App />
	</StrictMode>,
);
