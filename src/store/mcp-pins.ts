/**
 * Rows of the `mcp_pins` table: the definition of each MCP tool a human approved, per workspace
 * and server, with its digest. The store keeps rows; what a pin means (a changed digest blocks the
 * tool) is decided above it.
 */

export interface McpPinRow {
	id: number;
	/** Real path of the workspace. */
	workspace: string;
	server: string;
	tool: string;
	/** sha256 hex of the canonical definition. */
	digest: string;
	/** The canonical definition as approved (JSON text). */
	definition: string;
	/** What the review flagged in it when it was approved (JSON list of strings). */
	flags: string;
	approved_at: string;
	approved_by: string;
	revoked_at: string | null;
	revoked_by: string | null;
}

export type NewMcpPin = Omit<McpPinRow, "id" | "revoked_at" | "revoked_by">;

/** A definition a human refused for good (reject always): that digest is withheld without asking again. */
export interface McpRefusalRow {
	id: number;
	workspace: string;
	server: string;
	tool: string;
	/** sha256 hex of the canonical definition refused; another digest of the same tool is asked about anew. */
	digest: string;
	refused_at: string;
	refused_by: string;
}

export type NewMcpRefusal = Omit<McpRefusalRow, "id">;

export interface McpPinFilter {
	workspace?: string;
	server?: string;
	tool?: string;
	includeRevoked?: boolean;
}

export interface McpPinStore {
	/** Adds a live pin, revoking the live one for the same workspace, server and tool and lifting a refusal of that digest, in one transaction. */
	put(pin: NewMcpPin): Promise<McpPinRow>;
	/** Oldest first. */
	list(filter?: McpPinFilter): Promise<McpPinRow[]>;
	/** Revokes the live pins the filter names; returns them (none: an empty list). */
	revoke(filter: McpPinFilter & { workspace: string; server: string }, at: string, by: string): Promise<McpPinRow[]>;
	/** Records a refusal; refusing the same digest again keeps the first row and returns it. */
	refuse(refusal: NewMcpRefusal): Promise<McpRefusalRow>;
	/** The refusals of a workspace (optionally one server), oldest first. */
	refusals(filter: { workspace: string; server?: string }): Promise<McpRefusalRow[]>;
}

function matches(row: McpPinRow, filter: McpPinFilter): boolean {
	return (
		(filter.workspace === undefined || row.workspace === filter.workspace) &&
		(filter.server === undefined || row.server === filter.server) &&
		(filter.tool === undefined || row.tool === filter.tool) &&
		(filter.includeRevoked === true || row.revoked_at === null)
	);
}

/** The same contract kept in memory (the benchmarks' store). */
export class MemoryMcpPins implements McpPinStore {
	private readonly rows: McpPinRow[] = [];
	private readonly refused: McpRefusalRow[] = [];

	async refuse(refusal: NewMcpRefusal): Promise<McpRefusalRow> {
		const held = this.refused.find((r) => r.workspace === refusal.workspace && r.server === refusal.server && r.tool === refusal.tool && r.digest === refusal.digest);
		if (held) return { ...held };
		const row: McpRefusalRow = { ...refusal, id: this.refused.length + 1 };
		this.refused.push(row);
		return { ...row };
	}

	async refusals(filter: { workspace: string; server?: string }): Promise<McpRefusalRow[]> {
		return this.refused.filter((r) => r.workspace === filter.workspace && (filter.server === undefined || r.server === filter.server)).map((r) => ({ ...r }));
	}

	async put(pin: NewMcpPin): Promise<McpPinRow> {
		for (const row of this.rows) {
			if (row.revoked_at === null && row.workspace === pin.workspace && row.server === pin.server && row.tool === pin.tool) {
				row.revoked_at = pin.approved_at;
				row.revoked_by = pin.approved_by;
			}
		}
		const lifted = this.refused.findIndex((r) => r.workspace === pin.workspace && r.server === pin.server && r.tool === pin.tool && r.digest === pin.digest);
		if (lifted >= 0) this.refused.splice(lifted, 1);
		const row: McpPinRow = { ...pin, id: this.rows.length + 1, revoked_at: null, revoked_by: null };
		this.rows.push(row);
		return { ...row };
	}

	async list(filter: McpPinFilter = {}): Promise<McpPinRow[]> {
		return this.rows.filter((r) => matches(r, filter)).map((r) => ({ ...r }));
	}

	async revoke(filter: McpPinFilter & { workspace: string; server: string }, at: string, by: string): Promise<McpPinRow[]> {
		const hit = this.rows.filter((r) => matches(r, { ...filter, includeRevoked: false }));
		for (const row of hit) {
			row.revoked_at = at;
			row.revoked_by = by;
		}
		return hit.map((r) => ({ ...r }));
	}
}
