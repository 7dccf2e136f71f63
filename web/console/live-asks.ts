/** The pending asks, kept current by the server's ask stream (it pushes the list whenever it changes). */
import { useEffect, useState } from "react";
import type { PendingAsk } from "../../src/surfaces/console/console-types.js";

export function usePendingAsks(): { asks: PendingAsk[] | undefined; live: boolean } {
	const [asks, setAsks] = useState<PendingAsk[] | undefined>(undefined);
	const [live, setLive] = useState(false);
	useEffect(() => {
		const source = new EventSource("/api/asks/stream");
		source.onopen = () => setLive(true);
		source.onerror = () => setLive(false);
		source.addEventListener("asks", (message) => setAsks(JSON.parse((message as MessageEvent<string>).data) as PendingAsk[]));
		return () => source.close();
	}, []);
	return { asks, live };
}
