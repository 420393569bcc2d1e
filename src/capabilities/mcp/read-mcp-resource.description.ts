// ReadMcpResource's manual for the model.

export const READ_MCP_RESOURCE_DESCRIPTION = `Reads one resource of an MCP server by its URI: its text, or its image; \
other binary data is described, not shown.

When to use it:
- Use it to read a resource that ListMcpResources listed, or that a tool's result linked to.
- Pass \`server\` (the server's name) and \`uri\` (exactly as listed).

When not to use it:
- Do not use it for files in the workspace: use Read.
- Do not use it for web pages: use WebFetch.

Long text is cut like any tool output; the full text is kept as an output file.`;
