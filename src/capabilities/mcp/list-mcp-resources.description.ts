// ListMcpResources' manual for the model.

export const LIST_MCP_RESOURCES_DESCRIPTION = `Lists the resources the session's MCP servers offer: files, records, \
documents or other data a server exposes by URI, with a name and a media type.

When to use it:
- Use it to find out what data a connected MCP server can give before reading it with ReadMcpResource.
- Pass \`server\` to list one server's resources; leave it out to list every server's.

When not to use it:
- Do not use it for files in the workspace: use LS, Glob and Read.
- Do not use it to call a server's tools: they are tools of their own, named mcp__<server>__<tool>.

The result lists each resource as its URI, name and media type, by server.`;
