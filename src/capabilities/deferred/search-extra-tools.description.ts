// SearchExtraTools' manual for the model.

export const SEARCH_EXTRA_TOOLS_DESCRIPTION = `Finds tools that are available in this session but not listed among \
your tools (deferred tools, often the tools of MCP servers), and makes the ones it returns callable.

When to use it:
- Use it when you need a capability none of your listed tools has: describe it in a few keywords \
(\`query: "github issue create"\`), and the best matches come back with their full input schemas.
- Use \`select:<name>[,<name>…]\` to fetch tools by exact name, or \`/regex/\` to match names and descriptions.
- Prefix a keyword with \`+\` to require it (\`+slack message\`).

When not to use it:
- Do not use it for tools already listed to you: call them directly.
- Do not call a deferred tool before it was returned by a search: it is refused until then.

After a search, call a returned tool by its name, or through ExecuteExtraTool with \`name\` and \`input\`; \
either way its own permission rules and hooks apply.`;
