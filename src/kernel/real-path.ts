/**
 * The resolver the permission engine may use to see what a path really names (PolicyContext's
 * `resolvePath`); the runtime takes it from here so that only providers touch the filesystem.
 */
export { realPathIfExists as resolveRealPath } from "../providers/real-path.js";
