// WebSearch's manual for the model: what it returns, how to read a result, and when the workspace
// or a known URL answers the question instead.

export const WEB_SEARCH_DESCRIPTION = `Searches the web and returns results (title, URL, snippet). Use WebFetch to read a result.

Use it for information that is not in the workspace and may be newer than what you know: current documentation, \
release notes, an error message from a library. Narrow it with \`allowed_domains\` or \`blocked_domains\`.

Do not use it for anything in the workspace (use Grep, Glob or Read), or when you already have the URL (use WebFetch).`;
