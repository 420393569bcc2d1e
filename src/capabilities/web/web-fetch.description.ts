// WebFetch's manual for the model: what it returns, what it refuses, how redirects and the cache behave.

export const WEB_FETCH_DESCRIPTION = `Fetches a URL and returns its content: HTML as Markdown (the main content of the page), \
text and JSON as they are. Binary content is refused. \
Private, loopback and link-local addresses are refused unless the operator allowed them. \
A redirect to another host is not followed: the answer names the new URL, which you may fetch. \
Answers are cached for 15 minutes.`;
