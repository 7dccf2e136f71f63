/** Where Anthropic's API is unless ANTHROPIC_BASE_URL or a profile says otherwise; apart from the provider, so reading a spec does not load the SDK. */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
