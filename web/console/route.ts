/** The page's own routes, by hash (`#/audit?session=…`), so the server serves one page for all. */
import { useEffect, useState } from "react";

export const PAGES = [
	{ id: "feed", title: "Live feed" },
	{ id: "approvals", title: "Approvals" },
	{ id: "audit", title: "Audit" },
	{ id: "explain", title: "Explain" },
	{ id: "runs", title: "Sessions & runs" },
] as const;

export type PageId = (typeof PAGES)[number]["id"];

export interface Route {
	page: PageId;
	params: URLSearchParams;
}

function parse(hash: string): Route {
	const [path = "", search = ""] = hash.replace(/^#\/?/, "").split("?");
	const page = PAGES.find((p) => p.id === path)?.id ?? "feed";
	return { page, params: new URLSearchParams(search) };
}

export function useRoute(): Route {
	const [route, setRoute] = useState(() => parse(window.location.hash));
	useEffect(() => {
		const onChange = () => setRoute(parse(window.location.hash));
		window.addEventListener("hashchange", onChange);
		return () => window.removeEventListener("hashchange", onChange);
	}, []);
	return route;
}

export function href(page: PageId, params: Record<string, string | undefined> = {}): string {
	const search = new URLSearchParams();
	for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") search.set(k, v);
	const text = search.toString();
	return `#/${page}${text === "" ? "" : `?${text}`}`;
}
