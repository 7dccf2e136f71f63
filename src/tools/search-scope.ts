/** Directories the search tools never descend into: version-control internals and installed packages. */
export const SEARCH_SKIP_DIRS: readonly string[] = [".git", "node_modules"];
