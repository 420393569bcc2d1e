// WebSearch's manual for the model: what it returns and how to read a result.

export const WEB_SEARCH_DESCRIPTION = 'Searches the web and returns results (title, URL, snippet). Use WebFetch to read a result.';
