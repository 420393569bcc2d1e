// WebFetch's manual for the model: what it returns, what it refuses, how redirects and the cache
// behave, and when Read or WebSearch is the right tool instead.

export const WEB_FETCH_DESCRIPTION = `Fetches a URL and returns its content: HTML as Markdown (the main content of the page), \
text and JSON as they are. Binary content is refused. \
Private, loopback and link-local addresses are refused unless the operator allowed them. \
A redirect to another host is not followed: the answer names the new URL, which you may fetch. \
Answers are cached for 15 minutes.

Use it to read a web page or a text/JSON document whose http(s) URL you know, e.g. from the user or from \
WebSearch; say in \`prompt\` what you are looking for (it is repeated above the content). It makes a plain GET \
request without credentials, so pages behind a login will not show their content.

Do not use it for local files or anything in the workspace (use Read, Grep or Glob), or to look for pages you have \
no URL for (use WebSearch).`;
