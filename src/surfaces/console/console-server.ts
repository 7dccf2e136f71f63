/**
 * Starting the console: a read-only Runtime and feed over the state dir, the wake-up on its WAL,
 * the HTTP server on 127.0.0.1 (another address only when asked), and the URL with its token.
 */
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import type { AskQueue } from "../../runtime/asks/ask-types.js";
import { Runtime } from "../../runtime/runtime.js";
import { SqliteFeed } from "../../store/sqlite-feed.js";
import { createConsoleApp } from "./console-app.js";
import { loadAssets } from "./console-assets.js";
import { resolveRunAsConsole } from "./console-resolve.js";
import { isLoopback, newSecrets } from "./console-security.js";
import { StoreWakeup } from "./store-wakeup.js";

export interface ConsoleOptions {
	stateDir?: string;
	/** 0 (the default) lets the system choose a free port. */
	port?: number;
	/** Default 127.0.0.1. */
	host?: string;
	asks: AskQueue;
	/** Where the built page is; default dist/console-page. */
	assetDir?: string;
	/** The wake-up's fallback poll, in ms. */
	pollMs?: number;
	/** How long one live stream stays open before the browser is made to reconnect; default 5 minutes. */
	streamLifetimeMs?: number;
}

export interface RunningConsole {
	/** The URL with the token: printed once, opened once. */
	url: string;
	/** The URL without the token. */
	origin: string;
	port: number;
	token: string;
	/** The line to print when the address is not loopback, else undefined. */
	warning?: string;
	close(): Promise<void>;
}

export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
	const host = options.host ?? "127.0.0.1";
	const runtime = await Runtime.open({ ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }), readOnly: true });
	let feed: SqliteFeed | undefined;
	let wakeup: StoreWakeup | undefined;
	try {
		feed = SqliteFeed.open(runtime.stateDir);
		wakeup = new StoreWakeup(feed.walPath, options.pollMs === undefined ? {} : { pollMs: options.pollMs });
		const secrets = newSecrets();
		let port = 0;
		const stateDir = runtime.stateDir;
		const app = createConsoleApp({
			runtime,
			feed,
			wakeup,
			asks: options.asks,
			resolveRun: (run) => resolveRunAsConsole(stateDir, run),
			assets: loadAssets(options.assetDir),
			binding: { host, port: () => port },
			secrets,
			...(options.streamLifetimeMs === undefined ? {} : { streamLifetimeMs: options.streamLifetimeMs }),
		});
		const server = await listen(app.fetch, host, options.port ?? 0);
		port = (server.address() as AddressInfo).port;
		const shown = host.includes(":") ? `[${host}]` : host;
		const origin = `http://${shown}:${port}`;
		const opened = { feed, wakeup };
		return {
			url: `${origin}/?token=${secrets.token}`,
			origin,
			port,
			token: secrets.token,
			...(isLoopback(host) ? {} : { warning: `warning: the console listens on ${host}, not only this machine's loopback: anyone who can reach it and has the token can answer asks` }),
			async close() {
				opened.wakeup.close();
				await new Promise<void>((resolve) => {
					server.close(() => resolve());
					// Open feeds would hold close() forever.
					(server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
				});
				opened.feed.close();
				await runtime.close();
			},
		};
	} catch (err) {
		wakeup?.close();
		feed?.close();
		await runtime.close();
		throw err;
	}
}

function listen(fetch: (request: Request) => Response | Promise<Response>, hostname: string, port: number): Promise<ServerType> {
	return new Promise((resolve, reject) => {
		const server = serve({ fetch, hostname, port }, () => resolve(server));
		server.once("error", (err: NodeJS.ErrnoException) =>
			reject(new Error(err.code === "EADDRINUSE" ? `port ${port} on ${hostname} is in use: choose another with --port` : `cannot listen on ${hostname}:${port}: ${err.message}`)),
		);
	});
}
