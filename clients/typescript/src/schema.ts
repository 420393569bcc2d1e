// Generated from openapi/openapi.json by openapi-typescript (clients/typescript/generate.ts): `npm run client:write`. Do not edit.
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The process is up
         * @description Liveness: answers 200 while the process serves HTTP, whatever its dependencies. No key needed.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The process is up (HEAD: headers only)
         * @description The status and headers `GET /healthz` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headHealth"];
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Store, workspace root and sandbox usable, with details
         * @description Readiness: each dependency checked now (store, workspace root, sandbox, search, web search, sandbox limits and network), whether it is required, and a detail saying what to install or fix. 503 when a required one fails. No key needed.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Store, workspace root and sandbox usable, with details (HEAD: headers only)
         * @description The status and headers `GET /readyz` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headReadiness"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sessions, newest first
         * @description The caller's tenant's sessions, a page at a time: pass `next_cursor` as `cursor` for the next page (with the same filters). Each active session says how many of its permission requests and questions wait for a person (`pending`).
         */
        get: operations["listSessions"];
        put?: never;
        /**
         * Create a session
         * @description Misconfiguration (unknown tool, bad rule, unusable option) → 400 naming each problem; nothing is created.
         */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        /**
         * List sessions, newest first (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headSessions"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a session
         * @description The session with its mode, rules, tools, hooks, model (without keys), MCP servers, limits and warnings. Another tenant's session is a 404, like a missing one.
         */
        get: operations["getSession"];
        put?: never;
        post?: never;
        /**
         * Close a session (idempotent)
         * @description Running turns are cancelled, SessionEnd hooks run, and `session.closed` is the final event.
         */
        delete: operations["closeSession"];
        options?: never;
        /**
         * Get a session (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headSession"];
        /**
         * Change the permission mode and rules
         * @description Changes apply to the next permission check, including requests that wait now (a rule may decide them). A mode above the tenant's policy is a 403.
         */
        patch: operations["updateSession"];
        trace?: never;
    };
    "/v1/sessions/{session_id}/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tool list exactly as exposed to a model
         * @description With `?include=deferred`, every tool of the session, each with `deferred` and `unlocked` flags.
         */
        get: operations["listSessionTools"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The tool list exactly as exposed to a model (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/tools` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headSessionTools"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The whole session as one JSON document, for audit
         * @description Session, turns (tool_uses with their paired results), permission requests, permission decisions, spill-file records and every durable event in order, ending with `chain`: the head it covers, signed now (check it offline with `npx norma-verify`). Streamed: the size is bounded by the session, not by server memory. 409 when the stored chain no longer holds the head signed before (a rewritten or cut chain is never signed over; GET …/verify says where).
         */
        get: operations["exportSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The whole session as one JSON document, for audit (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/export` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headExportSession"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/turns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the session's turns, oldest first
         * @description Every turn of the session with its tool_uses, results and status.
         */
        get: operations["listTurns"];
        put?: never;
        /**
         * Post a turn
         * @description 202 with the running turn. With `?wait=S` the response is held until the turn finishes or pauses for a permission, or S seconds pass, and is 200 with the turn as it then is. One turn runs at a time (409).
         */
        post: operations["createTurn"];
        delete?: never;
        options?: never;
        /**
         * List the session's turns, oldest first (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/turns` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headTurns"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/turns/{turn_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a turn
         * @description The turn with its tool_uses, results (one per finished call, in order), pending requests and, for prompt turns, its messages and usage. `?wait=<s>` holds the answer until the turn ends or pauses.
         */
        get: operations["getTurn"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Get a turn (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/turns/{turn_id}` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headTurn"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/turns/{turn_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a turn
         * @description Running tools are stopped; every unfinished tool_use still gets its tool_result (is_error, "cancelled").
         */
        post: operations["cancelTurn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List permission requests, oldest first
         * @description Every permission request of the session, or only those with the given `status` (`?status=pending` lists what waits for an answer).
         */
        get: operations["listPermissions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * List permission requests, oldest first (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/permissions` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headPermissions"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/permissions/{permission_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a permission request
         * @description The request as it is now: pending, or resolved with who or what resolved it (`resolved_by`, `answered_by`, `rules`).
         */
        get: operations["getPermission"];
        put?: never;
        /**
         * Allow or deny a pending request
         * @description Allow (optionally with `updated_input`, validated and evaluated again, and `remember` rules) or deny (optionally with a `message` for the model and `interrupt` to stop the turn). Already resolved → 409. What an answer adds is bounded by the key's scope: a key that may PATCH the session (`write`) may remember any rule and choose any mode within the tenant's policy; an `approve` key may remember only the request's own `suggestions`, and may end plan mode only into the mode before it or a stricter one. Anything else → 403 naming it, and nothing is answered (the request stays pending).
         */
        post: operations["answerPermission"];
        delete?: never;
        options?: never;
        /**
         * Get a permission request (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/permissions/{permission_id}` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headPermission"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/decisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit trail of permission decisions, oldest first
         * @description Every permission decision about every tool call of the session: what decided it (a rule and its text, the mode, the tool's own check, the read-only judgement, a protected path, a person, a timeout, a cancellation, a hook), why, and the SHA-256 of the exact input it was about. A call whose input was rewritten has one decision per input. Page with `after` (the `seq` of the last decision seen).
         */
        get: operations["listDecisions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The audit trail of permission decisions, oldest first (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/decisions` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headDecisions"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/hook-runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit trail of hook runs, oldest first
         * @description Every hook run of the session — operator and session hooks — with the hook, its kind, the event, the call, the duration, the outcome, its decision and the digest of any rewrite it asked for, or the error. These are the session's `hook.completed` and `hook.failed` events. Page with `after` (the `seq` of the last one seen).
         */
        get: operations["listHookRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The audit trail of hook runs, oldest first (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/hook-runs` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headHookRuns"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/egress": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The evidence of outbound requests, oldest first
         * @description Every outbound request a tool (WebFetch, WebSearch) or an http hook of the session made, one record per redirect hop: time, call, hook, method, URL, the address connected to, status, bytes and SHA-256 of the body received — or the egress rule that refused it. These are the session's `egress.request` events. Page with `after` (the `seq` of the last one seen).
         */
        get: operations["listEgress"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The evidence of outbound requests, oldest first (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/egress` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headEgress"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/mcp/requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The evidence of requests to MCP servers, oldest first
         * @description Every request the session made to its MCP servers (initialize, tool and resource listings, tool calls, resource reads): time, call, server, method, tool, sizes and SHA-256 of request and response, outcome and duration. These are the session's `mcp.request` events. Page with `after` (the `seq` of the last one seen).
         */
        get: operations["listMcpRequests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The evidence of requests to MCP servers, oldest first (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/mcp/requests` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headMcpRequests"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/questions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List questions asked by AskUser calls, oldest first
         * @description Every question of the session, or only those with the given `status` (`?status=pending` lists what waits for an answer).
         */
        get: operations["listQuestions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * List questions asked by AskUser calls, oldest first (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/questions` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headQuestions"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/questions/{question_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a question
         * @description The question as it is now: pending, or answered or dismissed (with `answers`, `resolved_by` and `answered_by`).
         */
        get: operations["getQuestion"];
        put?: never;
        /**
         * Answer or dismiss pending questions
         * @description `answers` maps each question text to the label chosen (a list of labels for multiSelect questions) or to the person's own words (a single string that is not a label); `response` adds free text. `{"dismiss": true, "message"?}` declines to answer. The AskUser call's tool_result states the answers or the dismissal. Answers naming a question not asked, a label not offered (in a list), several labels for a single-choice question, or leaving a question unanswered without a `response` → 400. Already resolved → 409.
         */
        post: operations["answerQuestion"];
        delete?: never;
        options?: never;
        /**
         * Get a question (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/questions/{question_id}` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headQuestion"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/client-tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List calls of the session's client tools, oldest first
         * @description Every client-tool request of the session, or only those with the given `status` (`?status=pending` lists what waits for the client).
         */
        get: operations["listClientToolRequests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * List calls of the session's client tools, oldest first (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/client-tools` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headClientToolRequests"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/client-tools/{request_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a client-tool request
         * @description The request as it is now: pending, or answered (with `is_error`), timed out or cancelled (with `message`).
         */
        get: operations["getClientToolRequest"];
        put?: never;
        /**
         * Answer a client-tool request with what the tool returned
         * @description `content` (text, or text and image blocks) becomes the call's tool_result, `is_error: true` makes it an error result; text passes the session's output cap (the whole text is kept as a spill file). The turn goes on. An image over 5 MiB of base64 → 400. Already answered, timed out or cancelled → 409.
         */
        post: operations["answerClientTool"];
        delete?: never;
        options?: never;
        /**
         * Get a client-tool request (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/client-tools/{request_id}` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headClientToolRequest"];
        patch?: never;
        trace?: never;
    };
    "/v1/pending": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Everything waiting for a person, oldest first
         * @description The permission requests (with their `preview`) and questions of every session of the caller's tenant that wait for an answer, oldest first, each with its session's id, name, labels and mode; a page at a time (`next_cursor`). Answer each with its session's route (POST /v1/sessions/{session_id}/permissions/{id}, …/questions/{id}); GET /v1/events follows what changes.
         */
        get: operations["listPending"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Everything waiting for a person, oldest first (HEAD: headers only)
         * @description The status and headers `GET /v1/pending` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headPending"];
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream the events of every session of the tenant (Server-Sent Events)
         * @description One stream of the durable events of all the caller's tenant's sessions (sessions created later included), in the order they committed, whichever replica committed them. Each event has `id: <cursor>` (the tenant stream's own, opaque), `event: <type>` and the same JSON `data` as on the session's stream (its `session_id` and `seq` included). Resume with `Last-Event-ID` (it wins) or `?after=<cursor>`: everything after it is delivered in order, with no gap and no duplicate; without either the stream starts with what commits from now on. `?type=` (repeatable) keeps only those event types. Live-only events (`tool.progress`, `message.delta`) are not in it. A slow reader is never cut off: it falls behind and reads on at its own pace. A `: ping` comment line comes at least every 15 s. A browser authenticates with `?ticket=` (POST /v1/events/tickets).
         */
        get: operations["streamTenantEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events/tickets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Take a ticket for the tenant's event stream (browsers)
         * @description The ticket opens GET /v1/events once (`?ticket=…`) within 60 s, for the key that took it; it opens no session's stream.
         */
        post: operations["createTenantEventTicket"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/todos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The session's todo list, as TodoWrite last replaced it
         * @description The list and when it was last replaced (`updated_at`, null before the first TodoWrite). Durable: it survives restarts.
         */
        get: operations["getTodos"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The session's todo list, as TodoWrite last replaced it (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/todos` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headTodos"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/memory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The files of the session's memory store (`/memories` of the Memory tool)
         * @description Every regular file, with its size and SHA-256. A named store (`memory_store`) is shared by the sessions that name it.
         */
        get: operations["listMemory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The files of the session's memory store (`/memories` of the Memory tool) (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/memory` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headMemory"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The session's MCP servers: status, tools, resources, restarts and what went wrong
         * @description Configuration is shown without env or header values. A closed session lists its servers as `closed`.
         */
        get: operations["listMcpServers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The session's MCP servers: status, tools, resources, restarts and what went wrong (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/mcp` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headMcpServers"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/skills": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The skills the session may use, and which it has used
         * @description Each skill with its source (operator or workspace), description and allowed tools; `used` marks those a Skill call loaded.
         */
        get: operations["listSkills"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The skills the session may use, and which it has used (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/skills` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headSkills"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream the session's events (Server-Sent Events)
         * @description Each event has `id: <seq>`, `event: <type>` and JSON `data`. Resume with the `Last-Event-ID` header (it wins) or `?after=<seq>`: every later durable event is replayed in order, then the stream goes live. Live-only events (`tool.progress`) carry no `id`. A `: ping` comment line is sent at least every 15 s, as part of the next event's block; `retry:` (how long an EventSource waits before reconnecting) comes in the first event's block: no block lacks `data`. The stream ends after `session.closed`; a closed session with nothing left to replay answers 204, which stops an EventSource. A browser authenticates with `?ticket=` (POST …/events/tickets) instead of the Authorization header it cannot send.
         */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/events/tickets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Take a ticket for the event stream (browsers)
         * @description An EventSource cannot send the Authorization header, and a long-lived key never belongs in a URL. The ticket opens this session's event stream once (`GET …/events?ticket=…`) within 60 s, for the key that took it. A spent, expired or foreign ticket is refused with 401; take a new one for every (re)connection.
         */
        post: operations["createEventTicket"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/outputs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the session's spill files, oldest first
         * @description Each spill file of the session with its id, the call it belongs to, size, SHA-256 and status (`expired` once retention removed the file; the record stays).
         */
        get: operations["listOutputs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * List the session's spill files, oldest first (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/outputs` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headOutputs"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/outputs/{output_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download a spill file
         * @description The full output as `text/plain; charset=utf-8`, with `ETag` (the SHA-256), `Repr-Digest: sha-256=:<base64>:` (of the whole output, also on partial responses), single `Range: bytes=` requests (206), `If-None-Match` (304) and `If-Range`. An output removed by retention answers 410; its record stays in the list.
         */
        get: operations["getOutput"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Download a spill file (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/outputs/{output_id}` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headOutput"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/checkpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the session's checkpoints, oldest first
         * @description A checkpoint records the workspace at the start and end of every turn, before and after every call that may change it (any call that is not read-only), and around a rewind or fork. Content is stored once per distinct content (chunked), so an unchanged file costs nothing per checkpoint.
         */
        get: operations["listCheckpoints"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * List the session's checkpoints, oldest first (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/checkpoints` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headCheckpoints"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/checkpoints/{checkpoint_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One checkpoint, with what it did not capture and why
         * @description The checkpoint as listed, and each entry it did not capture (special files, files over the size bound or the budget, files written while read) with the reason.
         */
        get: operations["getCheckpoint"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * One checkpoint, with what it did not capture and why (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/checkpoints/{checkpoint_id}` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headCheckpoint"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What changed between two checkpoints (or turns), or up to now
         * @description `from` and `to` each take a checkpoint id or a turn id (as `from`: the workspace before the turn started; as `to`: after it ended); `to` also takes `current` (the default; for a closed session its last checkpoint). `from` defaults to the session's first checkpoint.
         */
        get: operations["getChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * What changed between two checkpoints (or turns), or up to now (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/changes` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headChanges"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/turns/{turn_id}/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What a turn changed
         * @description From the workspace before the turn started to the workspace after it ended, by any process of the session.
         */
        get: operations["getTurnChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * What a turn changed (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/turns/{turn_id}/changes` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headTurnChanges"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/rewind": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Put the workspace (or some paths) back as it was at a checkpoint
         * @description A checkpoint of the workspace is made first (`checkpoint_id`: rewind to it to undo this rewind). A path something other than the session changed since its last checkpoint is a conflict: 409 with `conflicts`, unless `force`. Refused (409) while a turn runs. Each file is replaced whole (written aside, then renamed); a rewind a crash interrupts is finished at the next start. `dry_run` says what would happen and changes nothing. Event `workspace.rewound`.
         */
        post: operations["rewindSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/compact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Compact the session's conversation now
         * @description Between turns: the conversation of its prompt turns is compacted — old tool results left out (each replaced by a note naming where its full text stays), the older messages summarised by the session's model (`instructions` added to what the summary keeps), the newest kept verbatim — and recorded on the last prompt turn (`compaction`): later turns send it instead of what it covers. The full transcript stays in the turns and the export. PreCompact hooks may refuse it; PostCompact hooks see the result. Its model call counts toward the session's and the tenant's budgets. Events `compaction.started`, `compaction.completed` (or `compaction.failed`). 409 while a turn runs, or when the summary fails or a budget is reached (nothing changes); `compacted: false` when there is nothing to compact.
         */
        post: operations["compactSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/fork": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A new session from this one at a checkpoint
         * @description Same tenant, settings, rules and policy limits; a new workspace holding the files as they were at `at` (default: now); the prompt turns that had ended by then as its transcript. The parent is unchanged. Counts against the tenant's `max_sessions`.
         */
        post: operations["forkSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/signing-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The public keys that sign chain heads (JWK)
         * @description The Ed25519 key this server signs chain heads and exports with (`key_id`, its RFC 7638 thumbprint), and every other key recorded in the store (other replicas' keys, keys used before a rotation). Pin the key id you fetched here when verifying an export offline: `npx norma-verify export.json --key keys.json`. A public key: no key needed.
         */
        get: operations["getSigningKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The public keys that sign chain heads (JWK) (HEAD: headers only)
         * @description The status and headers `GET /v1/signing-key` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headSigningKey"];
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Re-read the session's stored chain and report the first broken link
         * @description Checks every stored event and permission decision against its `hash` and the one before it, the session's last signed head against the chain and the known keys, and every spill file a chained event claims against its SHA-256 (decrypted when sealed). 200 either way: `ok` says whether it held, `first_broken` where it did not and why (an edited, removed or reordered record; a rewritten chain a signed head no longer matches; a changed spill file).
         */
        get: operations["verifySession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Re-read the session's stored chain and report the first broken link (HEAD: headers only)
         * @description The status and headers `GET /v1/sessions/{session_id}/verify` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headVerifySession"];
        patch?: never;
        trace?: never;
    };
    "/v1/encryption/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Wrap every tenant's data key again under the master key now in NORMA_ENCRYPTION_KEY_FILE
         * @description Write the new master key to NORMA_ENCRYPTION_KEY_FILE (on every replica), then call this once: the server reads the file, re-wraps every data key under it in one transaction (nothing sealed is rewritten) and wraps new ones with it. Sessions go on meanwhile. The operator only (NORMA_TOKEN, an `admin` key of the tenant `default`, or a loopback caller without keys). 409 when encryption is off, the file still holds the key in use, or the file is not a valid key.
         */
        post: operations["rotateEncryptionKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open the MCP session's stream of server messages (SSE)
         * @description Server notifications such as `notifications/tools/list_changed`. One at a time per MCP session (409 for a second).
         */
        get: operations["mcpStream"];
        put?: never;
        /**
         * Send an MCP message (Streamable HTTP)
         * @description One JSON-RPC message of MCP. `initialize` without `Mcp-Session-Id` opens an MCP session on a new session made from the tenant's defaults, or with `?session=` on that existing session; the answer carries `Mcp-Session-Id`. `tools/list` is the session's exposed tools; `tools/call` runs one direct turn through the whole pipeline; its permission requests and questions are asked through `elicitation/create` when the client declared elicitation, and stay answerable over the REST API. Requests are answered as JSON or as an SSE stream.
         */
        post: operations["mcpPost"];
        /**
         * End the MCP session
         * @description Ends the MCP session. A session made for it at initialize is closed with it unless NORMA_MCP_SESSION_END=keep; an attached session stays open.
         */
        delete: operations["mcpDelete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The server's metrics (Prometheus text format)
         * @description For the operator's Prometheus scraper: the counts are of the whole server, every tenant's work together. Needs the operator: NORMA_TOKEN, an `admin` key of the tenant `default`, or a loopback caller when no key is configured. A key of any other tenant gets 403, `admin` included. Metrics, all prefixed `norma_`: `http_request_duration_seconds` {method, route, status_code}; `turns_total` {kind, status} and `turn_duration_seconds` {kind}; `tool_calls_total` {tool, outcome} and `tool_call_duration_seconds` {tool} (tool: a built-in name, `mcp` for any MCP server's tool, or `other`); `permission_wait_seconds` and `question_wait_seconds` {outcome, resolved_by}; `pending_interactions` {kind}; `sse_subscribers`; `egress_requests_total` {kind, outcome}; `store_operation_duration_seconds` {operation}; and the process metrics (CPU, memory, event-loop delay, GC). Every label value is one the server defines: never a session id, tenant, key, MCP server name or URL.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * The server's metrics (Prometheus text format) (HEAD: headers only)
         * @description The status and headers `GET /metrics` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headMetrics"];
        patch?: never;
        trace?: never;
    };
    "/console/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who the console is logged in as
         * @description The login of the console's cookie (or of a Bearer key): tenant, key and scopes. On a server without keys, the loopback caller with `keys_required: false`. 401 when not logged in.
         */
        get: operations["getConsoleSession"];
        put?: never;
        /**
         * Log the console in with a key
         * @description Checks the key and answers with an HttpOnly, SameSite=Strict cookie holding a login token (never the key) that acts for the key for at most 12 hours. The cookie counts only on requests with `X-Norma-Console: 1` from this server's origin; this request needs the same. 409 on a server without keys (the console needs no login there). At most 20 tries a minute from one address.
         */
        post: operations["createConsoleSession"];
        /**
         * Log the console out
         * @description Ends the login at once (its token opens nothing from now on) and clears the cookie. 204 also when there was no login.
         */
        delete: operations["deleteConsoleSession"];
        options?: never;
        /**
         * Who the console is logged in as (HEAD: headers only)
         * @description The status and headers `GET /console/session` answers, without its body (RFC 9110 §9.3.2).
         */
        head: operations["headConsoleSession"];
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description RFC 9457 problem details (application/problem+json) */
        Problem: {
            /** @description URI reference identifying the problem type */
            type: string;
            title: string;
            status: number;
            /** @description What went wrong, precisely enough to fix the request */
            detail: string;
            instance?: string;
            errors?: {
                /** @description body, query, params or headers */
                location?: string;
                /** @description JSON pointer to the offending value */
                path: string;
                message: string;
            }[];
            /** @description A rewind refused (409): the paths something other than the session changed since its last checkpoint */
            conflicts?: {
                path: string;
                reason: string;
            }[];
        };
        /**
         * @description SPEC §4 permission modes
         * @enum {string}
         */
        PermissionMode: "default" | "acceptEdits" | "plan" | "bypassPermissions" | "dontAsk" | "auto";
        SessionRule: {
            /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
            rule: string;
            /** @enum {string} */
            behavior: "allow" | "deny" | "ask";
            /**
             * @description `remember`: added by an approval; `patch`: added by PATCH; `tool`: added by a tool call's result (its effects)
             * @enum {string}
             */
            source: "remember" | "patch" | "tool";
            /**
             * Format: date-time
             * @description When the rule was added
             */
            added_at: string;
        };
        /** @description Per-session hooks, by event (SPEC §5) */
        SessionHooks: {
            PreToolUse?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            PostToolUse?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            PostToolUseFailure?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            UserPromptSubmit?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            SessionStart?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            SessionEnd?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            Stop?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            SubagentStart?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            SubagentStop?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            StopFailure?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            PermissionRequest?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            PermissionDenied?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            Notification?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            PreCompact?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            PostCompact?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
            PostToolBatch?: {
                matcher?: string;
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                if?: string;
                hooks: ({
                    /** @enum {string} */
                    type: "command";
                    command: string;
                    timeout_s?: number;
                    /** @description The hook may connect out through the session's egress proxy, under the session's network scope (in a session without a network: any public host; deny rules and the tenant's policy still apply). Default false: no network */
                    network?: boolean;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                } | {
                    /** @enum {string} */
                    type: "http";
                    /** Format: uri */
                    url: string;
                    timeout_s?: number;
                    secret?: string;
                    /**
                     * @description PreToolUse: when this hook times out or crashes, block the call (default, fail-closed) or go on
                     * @enum {string}
                     */
                    on_failure?: "block" | "continue";
                })[];
            }[];
        };
        /** @description One reply of the scripted provider: assistant content blocks, or a provider error */
        ScriptReply: {
            content: ({
                /** @enum {string} */
                type: "text";
                text: string;
            } | {
                /** @enum {string} */
                type: "tool_use";
                id?: string;
                name: string;
                input?: unknown;
                /** @description Raw input text as a model would stream it (may be invalid JSON, to exercise the error path) */
                input_json?: string;
            })[];
            stop_reason?: string;
        } | {
            error: string;
        };
        ModelConfigInput: {
            /** @enum {string} */
            provider: "anthropic" | "openai" | "scripted";
            model: string;
            /**
             * Format: uri
             * @description anthropic: the API root (default https://api.anthropic.com); openai: the root including the version path (default https://api.openai.com/v1, e.g. http://127.0.0.1:11434/v1 for Ollama). A session-supplied URL passes the egress guard.
             */
            base_url?: string;
            api_key?: string;
            /** @description Largest response per model call. Default: `8192`. */
            max_tokens?: number;
            /** @description Most model calls in one prompt turn; beyond it the turn fails with `max_turns`. Default: `50`. */
            max_turns?: number;
            /** @description Extended thinking. anthropic: thinking with `budget_tokens` (from `effort` when only that is given: low 2048, medium 8192, high 24576), and max_tokens raised above the budget when it is not. openai: `reasoning_effort` (from `budget_tokens` when only that is given: up to 4096 low, up to 16384 medium, else high). Thinking blocks are kept in the transcript and sent back with their signatures. The scripted provider ignores it. */
            thinking?: {
                /** @description Tokens the model may spend thinking */
                budget_tokens?: number;
                /** @enum {string} */
                effort?: "low" | "medium" | "high";
            };
            /** @description The model's context window in tokens, for compaction; default: known models' own */
            context_window?: number;
            /** @description scripted only: reply N answers the N-th model call of the conversation (counted by assistant messages) */
            script?: components["schemas"]["ScriptReply"][];
            /** @description scripted only: the replies of subagent conversations (the Agent tool), counted the same way within each */
            subagent_script?: components["schemas"]["ScriptReply"][];
        };
        ModelConfig: {
            /** @enum {string} */
            provider: "anthropic" | "openai" | "scripted";
            model: string;
            base_url?: string;
            /** @description Whether a key is configured; the key itself is never echoed */
            has_api_key: boolean;
            max_tokens: number;
            max_turns: number;
            /** @description Extended thinking, when the session asked for it */
            thinking?: {
                budget_tokens?: number;
                /** @enum {string} */
                effort?: "low" | "medium" | "high";
            };
            /** @description The model's context window in tokens, when one was given */
            context_window?: number;
            /**
             * @description `session`: given at creation; `server`: the server default (NORMA_MODEL_*)
             * @enum {string}
             */
            source: "session" | "server";
            /** @description scripted: how many replies the script has */
            script_replies?: number;
        };
        InstructionFile: {
            /** @description The file name at the workspace root (`AGENTS.md`, `NORMA.md`, `CLAUDE.md`) */
            file: string;
            bytes: number;
            /** @description SHA-256 (hex) of the text that joined the system prompt */
            sha256: string;
        };
        McpStdioServer: {
            /** @description The program, run in the session's process sandbox: an absolute path, or a name found on the absolute directories of PATH (the sandbox's, or the one `env` gives). Never one in the workspaces, unless `workspace_code` is true */
            command: string;
            /** @description `${NORMA_WORKSPACE}` in an argument stands for the session's workspace (which the server also finds in its NORMA_WORKSPACE variable) */
            args?: string[];
            /** @description The only variables the server gets besides a minimal base (PATH, HOME, TMPDIR, LANG) and NORMA_WORKSPACE; never echoed back. A value naming a path in the workspaces (PYTHONPATH, NODE_PATH, NODE_OPTIONS --require, PERL5LIB, LD_PRELOAD, …) is refused unless `workspace_code` is true; relative PATH entries are dropped */
            env?: {
                [key: string]: string;
            };
            /** @description Absolute host paths the server may read besides the system directories and the workspace (its install directory). For a session's own servers each must lie under NORMA_MCP_READ_ONLY_ROOTS */
            read_only_paths?: string[];
            /** @description HTTP(S) out through the session's egress proxy and guard (default: no network) */
            network?: boolean;
            /**
             * @description How the server sees the session's workspace (default `read-write`; `none`: not at all). It is never the server's working directory: the server starts in a home of its own, and nothing in the workspace is a program, module or configuration it loads
             * @enum {string}
             */
            workspace?: "read-write" | "read-only" | "none";
            /** @description Run the server in the workspace as code it trusts (default false): the workspace is its working directory, and its command, PATH and variables may name paths there — whatever the session writes into the workspace may then run with this server's environment and network */
            workspace_code?: boolean;
            /** @description Start, initialize and list the tools within this long (default 30) */
            startup_timeout_s?: number;
            /** @description Each request (a tool call, a resource read) within this long (default 120) */
            request_timeout_s?: number;
            /** @description Take the server's `readOnlyHint` annotation as true: such tools are read-only (allowed without asking, concurrent, allowed in plan mode). Default false: a hint from the server is not trusted, and every tool of it is mutating and approval-required unless rules say otherwise */
            trust_read_only_hint?: boolean;
        };
        McpHttpServer: {
            /** @description A Streamable HTTP endpoint, reached through the egress guard */
            url: string;
            /** @description Sent with every request; never echoed back */
            headers?: {
                [key: string]: string;
            };
            /** @description Start, initialize and list the tools within this long (default 30) */
            startup_timeout_s?: number;
            /** @description Each request (a tool call, a resource read) within this long (default 120) */
            request_timeout_s?: number;
            /** @description Take the server's `readOnlyHint` annotation as true: such tools are read-only (allowed without asking, concurrent, allowed in plan mode). Default false: a hint from the server is not trusted, and every tool of it is mutating and approval-required unless rules say otherwise */
            trust_read_only_hint?: boolean;
        };
        McpServerConfig: components["schemas"]["McpStdioServer"] | components["schemas"]["McpHttpServer"];
        McpServerPublic: {
            /** @enum {string} */
            transport: "stdio" | "http";
            /** @enum {string} */
            source: "session" | "operator";
            command?: string;
            args?: string[];
            /** @description Names of the variables given (values are never shown) */
            env_keys?: string[];
            read_only_paths?: string[];
            network?: boolean;
            /** @enum {string} */
            workspace?: "read-write" | "read-only" | "none";
            workspace_code?: boolean;
            url?: string;
            header_names?: string[];
            trust_read_only_hint: boolean;
        };
        McpServerState: {
            name: string;
            /**
             * @description `restarting`: it exited and starts again after a pause; `failed`: it could not be (re)started and is not retried
             * @enum {string}
             */
            status: "starting" | "running" | "restarting" | "failed" | "closed";
            config: components["schemas"]["McpServerPublic"];
            server_info: {
                name: string;
                version: string;
            } | null;
            protocol_version: string | null;
            tools: {
                /** @description The full name, `mcp__<server>__<tool>` */
                name: string;
                /** @description The name the server gave it */
                tool: string;
                description: string;
                /** @description Judged read-only (only with trust_read_only_hint and the server's readOnlyHint) */
                read_only: boolean;
            }[];
            resources: {
                uri: string;
                name: string;
                mime_type?: string;
            }[];
            /** @description Tools left out (bad names, schemas that do not compile) and other trouble, in words */
            problems: string[];
            /** @description How many times it was started again after exiting */
            restarts: number;
            last_exit: {
                code: number | null;
                signal: string | null;
                /**
                 * Format: date-time
                 * @description When it exited
                 */
                at: string;
                reason: string;
            } | null;
            /** @description The last few KiB the server wrote to stderr (secrets redacted) */
            stderr_tail: string;
            started_at: string | null;
        };
        McpServerList: {
            servers: components["schemas"]["McpServerState"][];
        };
        /** @description The limits the session's tenant sets, which the session cannot loosen */
        TenantPolicyPublic: {
            max_permission_mode: components["schemas"]["PermissionMode"] | null;
            /** @description Deny rules in force for every session of the tenant (decisions name them with `decided_by: "policy"`) */
            disallowed_tools: string[];
            /** @description Events with hooks the tenant's sessions always run */
            hook_events: string[];
            max_sessions: number | null;
            max_running_turns: number | null;
            requests_per_minute: number | null;
            max_checkpoint_bytes: number | null;
            /** @description What the tenant's model calls may cost per UTC day, in US dollars (null: no limit) */
            max_usd_per_day: number | null;
            /** @description Secrets every session of the tenant's processes may use, by name */
            secret_names: string[];
        };
        EventTicket: {
            /** @description Pass as `?ticket=` to GET …/events once, within 60 s (EventSource cannot send headers) */
            ticket: string;
            /**
             * Format: date-time
             * @description The ticket is refused from then on
             */
            expires_at: string;
        };
        SessionCreate: {
            /** @description An existing directory under NORMA_WORKSPACE_ROOT; default: a fresh directory made by the server */
            workspace?: string;
            /** @description A name for people (free text, no control characters, at most 200 characters) */
            name?: string;
            /** @description Labels (`{key: value}`, at most 32) that `GET /v1/sessions?label=key:value` filters on; keys: letters, digits, `._/-` (at most 63), values: text of at most 256 characters */
            labels?: {
                [key: string]: string;
            };
            permission_mode?: components["schemas"]["PermissionMode"];
            allowed_tools?: string[];
            disallowed_tools?: string[];
            ask_rules?: string[];
            /** @description Tool names to install; default: the default set */
            tools?: string[];
            hooks?: components["schemas"]["SessionHooks"];
            /** @description Default: `30000`. */
            output_cap_chars?: number;
            /** @description Deny a pending ask after this long */
            permission_timeout_s?: number;
            /** @description Dismiss a pending AskUser question after this long (the call is told it timed out) */
            question_timeout_s?: number;
            /** @description A named memory store for the Memory tool, shared by the sessions that name it; default: a store private to this session */
            memory_store?: string;
            /** @description Skills the session may use (from NORMA_SKILLS_DIR and the workspace's `.norma/skills/`); default: every valid one found */
            skills?: string[];
            model?: components["schemas"]["ModelConfigInput"];
            system_prompt?: string;
            /** @description Record the workspace at the start of every turn and around every call that may change it, so any change can be seen (GET …/changes) and taken back (POST …/rewind); default: the operator's NORMA_CHECKPOINTS (on) */
            checkpoints?: boolean;
            /** @description The network of the session's processes (Bash, background tasks, PTY shells), through its egress proxy: `false` (default) none; `true` any public host over HTTP and HTTPS; `"rules"` only hosts a `Network(domain:…)` allow rule names; `"ask"` hosts no rule decides are asked about (a permission request with `tool: "Network"` while the connection waits). Deny rules and the tenant's policy apply in every mode; other TCP needs a rule that names host and port. The egress guard applies (private, loopback and metadata addresses refused unless NORMA_EGRESS_ALLOW opens them; the server's own addresses always); every connection is an egress.request event. Needs the process sandbox and socat on the server. */
            sandbox_network?: boolean | ("rules" | "ask");
            /** @description Secrets by environment variable name: `{value, hosts, header?, format?}`. Sandboxed processes see the name set to a placeholder, never the value; the egress proxy puts the value into requests to the hosts only (HTTPS too: the session's processes trust its certificate authority) and refuses a request that carries a placeholder anywhere else. Needs the process sandbox and network (`sandbox_network` other than false) */
            secrets?: {
                [key: string]: {
                    /** @description The secret (8 characters or more; no line breaks or control characters): never shown, never in the sandbox */
                    value: string;
                    /** @description Where the value may go: `example.com`, `*.example.com` (subdomains only), optionally with `:port` — as `Network(domain:…)` rules write them */
                    hosts: string[];
                    /** @description Set this header on every request to the hosts (e.g. `Authorization`); without it, the placeholder is replaced where the process puts it (a header, Basic credentials, the body) */
                    header?: string;
                    /** @description The header's value with `{value}` where the secret goes (default `{value}`), e.g. `Bearer {value}` */
                    format?: string;
                };
            };
            budget?: components["schemas"]["Budget"];
            compaction?: components["schemas"]["CompactionSettings"];
            /** @description MCP servers by name (`^[a-zA-Z0-9_-]{1,32}$`): `{command, args?, env?, read_only_paths?, network?, workspace?, workspace_code?}` (stdio, in the process sandbox) or `{url, headers?}` (Streamable HTTP, through the egress guard) */
            mcp_servers?: {
                [key: string]: components["schemas"]["McpServerConfig"];
            };
            /** @description Tools the client runs (at most 64): the model may call them; a call waits (turn `awaiting_input`, event `client_tool.requested`) until the client answers with POST …/client-tools/{request_id}. Rules and hooks apply as to any tool. Fixed for the session's life (a fork keeps them) */
            client_tools?: components["schemas"]["ClientToolDefinition"][];
            /** @description Tools kept out of the schemas a model sees (names or `*` patterns: `mcp__*`, `mcp__github__*`, `WebFetch`): found with SearchExtraTools, run by name or with ExecuteExtraTool once unlocked. Installs SearchExtraTools and ExecuteExtraTool */
            deferred_tools?: string[];
            /** @description Lower resource limits for this session's processes than the operator's (NORMA_SANDBOX_*); a higher value is refused */
            limits?: {
                /** @description Memory of the session's processes together (cgroups), or of each process (rlimit) */
                memory_bytes?: number;
                /** @description Processes and threads of the session at once (cgroups); per server user with rlimits */
                processes?: number;
                /** @description CPU share relative to other work (cgroup cpu.weight: 100 is an ordinary process) */
                cpu_weight?: number;
                /** @description Largest file one process may write */
                file_size_bytes?: number;
                /** @description Open descriptors per process */
                open_files?: number;
                /** @description Disk used by the workspace and the sandbox's home and /tmp together */
                disk_bytes?: number;
            };
        };
        /** @description The resource limits of the session's sandboxed processes */
        SessionLimits: {
            /**
             * @description How the limits are enforced: a cgroup (v2 or v1) per session, per-process rlimits where the host delegates no cgroup, or none (NORMA_SANDBOX=off)
             * @enum {string}
             */
            enforcement: "cgroup2" | "cgroup1" | "rlimit" | "none";
            /** @description Memory of the session's processes together (cgroups), or of each process (rlimit) */
            memory_bytes: number;
            /** @description Processes and threads of the session at once (cgroups); per server user with rlimits */
            processes: number;
            /** @description CPU share relative to other work (cgroup cpu.weight: 100 is an ordinary process) */
            cpu_weight: number;
            /** @description Largest file one process may write */
            file_size_bytes: number;
            /** @description Open descriptors per process */
            open_files: number;
            /** @description Disk used by the workspace and the sandbox's home and /tmp together */
            disk_bytes: number;
        };
        SessionPatch: {
            /** @description The session's new name (null: none) */
            name?: string | null;
            /** @description Labels (`{key: value}`, at most 32) that `GET /v1/sessions?label=key:value` filters on; keys: letters, digits, `._/-` (at most 63), values: text of at most 256 characters */
            labels?: {
                [key: string]: string;
            };
            permission_mode?: components["schemas"]["PermissionMode"];
            allowed_tools?: string[];
            disallowed_tools?: string[];
            ask_rules?: string[];
            /** @description Session rules to add */
            add_rules?: {
                /** @description A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` (or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules */
                rule: string;
                /** @enum {string} */
                behavior: "allow" | "deny" | "ask";
            }[];
            /** @description Session rules to remove */
            remove_rules?: string[];
            compaction?: components["schemas"]["CompactionSettings"];
            /** @description The session's new budget (replacing the old one; null: none). A pending `Budget` request of the session's is decided again under it */
            budget?: components["schemas"]["Budget"] | null;
        };
        Session: {
            /** @description Server-made session id (`ses_…`) */
            id: string;
            /** @enum {string} */
            status: "active" | "closed";
            /** @description The session's name for people (null: none) */
            name: string | null;
            /** @description The session's labels */
            labels: {
                [key: string]: string;
            };
            /** @description Permission requests and questions of the session waiting for a person now (in GET /v1/sessions/{id} and the list; GET /v1/pending lists them) */
            pending?: number;
            /** @description The tenant the session belongs to (the key that created it); other tenants' keys do not see it */
            tenant: string;
            /** @description The tenant's policy as it is now: limits the session cannot loosen (null: none) */
            policy: components["schemas"]["TenantPolicyPublic"] | null;
            /** @description Absolute path of the session workspace (the file tools' boundary) */
            workspace: string;
            /** @description Whether the server made the workspace */
            workspace_owned: boolean;
            permission_mode: components["schemas"]["PermissionMode"];
            allowed_tools: string[];
            disallowed_tools: string[];
            ask_rules: string[];
            /** @description Session rules added by approvals (`remember`) or PATCH */
            rules: components["schemas"]["SessionRule"][];
            /** @description Installed tool names (the lookup set) */
            tools: string[];
            output_cap_chars: number;
            permission_timeout_s: number | null;
            /**
             * @description The process sandbox mode for this session's shell tools and command hooks
             * @enum {string}
             */
            sandbox: "bwrap" | "off";
            /** @description Events with per-session hooks configured */
            hook_events: string[];
            question_timeout_s: number | null;
            /** @description In plan mode: the mode ExitPlanMode returns to when the approval names none */
            mode_before_plan: components["schemas"]["PermissionMode"] | null;
            /** @description The named memory store; null: the session's private one */
            memory_store: string | null;
            /** @description Skills the session may use (see GET …/skills) */
            skills: string[];
            /** @description Skills invoked so far: their folders are readable by Read, Glob and Grep */
            used_skills: string[];
            /** @description Deferred tools unlocked so far (by a skill's allowed-tools or SearchExtraTools); durable */
            unlocked_tools: string[];
            /** @description Names and patterns of the session's deferred tools */
            deferred_tools: string[];
            /** @description The names of the tools the session's client runs (`client_tools`; their definitions: GET …/tools) */
            client_tools: string[];
            /** @description The session's MCP servers (its own and the operator's), without env or header values; their state: GET …/mcp */
            mcp_servers: {
                [key: string]: components["schemas"]["McpServerPublic"];
            };
            /** @description Instruction files at the workspace root that join the system prompt of prompt turns (as last loaded) */
            instructions: components["schemas"]["InstructionFile"][];
            model: components["schemas"]["ModelConfig"] | null;
            system_prompt: string | null;
            /** @description The network of the session's processes: false, true (any public host), "rules" or "ask" */
            sandbox_network: boolean | ("rules" | "ask");
            /** @description The secrets the session's processes may use (the operator's, the tenant's and its own), by name; values are never shown */
            secret_names: string[];
            /** @description The limit on the session's model calls (null: none) */
            budget: components["schemas"]["Budget"] | null;
            usage: components["schemas"]["SessionUsage"];
            /** @description How the conversation of prompt turns is compacted: automatically past `threshold` of the context window, or on demand (POST …/compact) */
            compaction: {
                auto: boolean;
                threshold: number;
            };
            /** @description Whether the session records checkpoints of its workspace (GET …/checkpoints) */
            checkpoints: boolean;
            /** @description The session and checkpoint this one was forked from (POST …/fork); null: not a fork */
            forked_from: components["schemas"]["ForkedFrom"] | null;
            limits: components["schemas"]["SessionLimits"];
            active_turn_id: string | null;
            warnings: string[];
            /**
             * Format: date-time
             * @description Creation time
             */
            created_at: string;
            closed_at: string | null;
        };
        SessionList: {
            items: components["schemas"]["Session"][];
            /** @description Pass as `cursor` for the next page */
            next_cursor: string | null;
        };
        ToolDefinition: {
            name: string;
            description: string;
            /** @description JSON Schema of the tool input */
            input_schema: unknown;
            /** @description With ?include=deferred: kept out of the model's list (found with SearchExtraTools) */
            deferred?: boolean;
            /** @description With ?include=deferred, for a deferred tool: it may run now */
            unlocked?: boolean;
            /** @description A tool the session's client runs (`client_tools`): a call waits for the client's answer; the server never runs it */
            client?: boolean;
        };
        ToolList: components["schemas"]["ToolDefinition"][];
        ToolUse: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "tool_use";
            id: string;
            name: string;
            input: unknown;
            /** @description Prompt turns: the model sent input that is not a JSON object (`input` is then `{}`); the call gets an is_error result naming this */
            input_error?: string;
        };
        TextBlock: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "text";
            text: string;
        };
        /** @description An image a tool returned (an MCP tool's image content); never capped, at most 5 MiB of base64 */
        ImageBlock: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "image";
            source: {
                /** @enum {string} */
                type: "base64";
                /** @enum {string} */
                media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
                /** @description Base64 of the image bytes */
                data: string;
            };
        };
        /** @description Structured metadata of a capped block; never inferred from text */
        Truncation: {
            /** @description Spill file id (`out_…`) holding the full text */
            output_id?: string;
            /** @description Which content block was capped */
            block_index: number;
            total_chars: number;
            shown_chars: number;
            /** @description SHA-256 (hex) of the full UTF-8 text */
            sha256: string;
        };
        ToolResult: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "tool_result";
            tool_use_id: string;
            is_error: boolean;
            content: (components["schemas"]["TextBlock"] | components["schemas"]["ImageBlock"])[];
            truncation?: components["schemas"]["Truncation"];
            /** @description Every capped block, when more than one was capped */
            truncations?: components["schemas"]["Truncation"][];
        };
        /** @description The model's thinking (model.thinking), kept and sent back as the provider gave it */
        ThinkingBlock: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "thinking";
            thinking: string;
            /** @description The provider's signature of the thinking, sent back with it unchanged (empty: a provider that signs none) */
            signature: string;
        };
        /** @description Thinking the provider encrypted */
        RedactedThinkingBlock: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "redacted_thinking";
            /** @description Encrypted thinking, sent back unchanged */
            data: string;
        };
        /** @description A block of a model message: text, a tool_use, thinking or redacted_thinking (assistant), or a tool_result (user) */
        ContentBlock: components["schemas"]["TextBlock"] | components["schemas"]["ToolUse"] | components["schemas"]["ToolResult"] | components["schemas"]["ThinkingBlock"] | components["schemas"]["RedactedThinkingBlock"];
        PromptTextBlock: {
            /** @enum {string} */
            type: "text";
            text: string;
        };
        /** @description A direct turn: the client names the tool calls */
        DirectTurnCreate: {
            /** @description The calls to run, in order (read-only ones may run together); each gets exactly one tool_result */
            tool_uses: {
                /** @description Client id for the call; generated (`toolu_…`) when absent */
                id?: string;
                name: string;
                /** @description The tool input; validated against the tool schema inside the turn */
                input: unknown;
            }[];
            /** @description Not in a direct turn */
            prompt?: never;
        };
        /** @description A prompt turn: the server runs the model loop with the session's model */
        PromptTurnCreate: {
            /** @description The user message: text, or text blocks */
            prompt: components["schemas"]["PromptTextBlock"][] | string;
            /** @description Not in a prompt turn */
            tool_uses?: never;
            budget?: components["schemas"]["Budget"];
        };
        /** @description A direct turn (`tool_uses`) or a prompt turn (`prompt`): exactly one of the two */
        TurnCreate: components["schemas"]["DirectTurnCreate"] | components["schemas"]["PromptTurnCreate"];
        TurnError: {
            code: string;
            message: string;
        };
        /** @description A limit on model calls: checked before each call with the call's worst case (its input and max_tokens of output); reaching it pauses the turn with a `Budget` permission request, or ends it with `budget_exceeded` where nobody can be asked (dontAsk, auto) */
        Budget: {
            /** @description What model calls may cost, in US dollars (the session's model needs a known price: NORMA_MODEL_PRICES or a built-in one) */
            max_usd?: number;
            /** @description Input plus output tokens model calls may use */
            max_tokens?: number;
        };
        /** @description Tokens as the provider counted them and their cost (summed over model calls) */
        Usage: {
            /** @description Every input token, cached ones included */
            input_tokens: number;
            /** @description Output tokens, thinking included */
            output_tokens: number;
            /** @description Of input_tokens: read from the provider's prompt cache */
            cache_read_input_tokens?: number;
            /** @description Of input_tokens: written to the provider's prompt cache */
            cache_creation_input_tokens?: number;
            /** @description What the calls cost in US dollars, from the operator's price table (NORMA_MODEL_PRICES) or the built-in one; null when the model's price is not known (never a guess) */
            cost_usd?: number | null;
            /** @description Calls whose provider reported no usage: they are counted at their worst case (their input estimate and max_tokens) */
            estimated_calls?: number;
        };
        /** @description What all the session's model calls used and cost */
        SessionUsage: {
            /** @description Every input token, cached ones included */
            input_tokens: number;
            /** @description Output tokens, thinking included */
            output_tokens: number;
            /** @description Of input_tokens: read from the provider's prompt cache */
            cache_read_input_tokens?: number;
            /** @description Of input_tokens: written to the provider's prompt cache */
            cache_creation_input_tokens?: number;
            /** @description What the calls cost in US dollars, from the operator's price table (NORMA_MODEL_PRICES) or the built-in one; null when the model's price is not known (never a guess) */
            cost_usd?: number | null;
            /** @description Calls whose provider reported no usage: they are counted at their worst case (their input estimate and max_tokens) */
            estimated_calls?: number;
            /** @description Model calls made, subagents' included */
            model_calls: number;
        };
        CompactionSettings: {
            /** @description Compact before a model call whose input would pass the threshold, and once when the provider says the context is too long (default true); false: never on its own, overflow included */
            auto?: boolean;
            /** @description The share of the model's context window (model.context_window, or the known model's own) past which a call compacts first; default 0.8 */
            threshold?: number;
        };
        /** @description The newest compaction of the conversation, on the turn it was made in; the full transcript stays in `messages` and the export */
        Compaction: {
            /** @description Server-made compaction id (`cmp_…`) */
            id: string;
            /**
             * @description `auto`: the threshold was passed; `manual`: POST …/compact; `overflow`: the provider said the context was too long
             * @enum {string}
             */
            trigger: "auto" | "manual" | "overflow";
            /**
             * @description `elided`: leaving out old tool results (each replaced by a note naming where its full text stays) was enough; `summarised`: the older messages were summarised by the session's model
             * @enum {string}
             */
            stage: "elided" | "summarised";
            /** @description The conversation's input tokens before (estimated) */
            tokens_before: number;
            /** @description And after */
            tokens_after: number;
            /** @description Tool results left out */
            elided_results: number;
            /** @description Messages the summary stands for */
            summarised_messages: number;
            /** @description The newest messages kept verbatim */
            kept_messages: number;
            /** @description SHA-256 (hex) of the summary text */
            summary_sha256: string | null;
            /** @description How many of this turn's `messages` it stands for (with every earlier prompt turn's) */
            covers: number;
            /** @description What the model is sent instead of the messages it covers; the later messages follow verbatim */
            messages: components["schemas"]["Message"][];
            /**
             * Format: date-time
             * @description When it was made
             */
            created_at: string;
        };
        CompactRequest: {
            /** @description What the summary should keep or stress, added to the summary's instructions */
            instructions?: string;
        };
        CompactResult: {
            /** @description false: there was nothing to compact (said in `detail`) */
            compacted: boolean;
            /** @description The turn the compaction is recorded on */
            turn_id: string | null;
            compaction: components["schemas"]["Compaction"] | null;
            detail?: string;
        };
        Message: {
            /** @enum {string} */
            role: "user" | "assistant";
            /** @description Anthropic-style blocks: `text` and `tool_use` (assistant), `text` and `tool_result` (user) */
            content: components["schemas"]["ContentBlock"][];
        };
        Turn: {
            /** @description Server-made turn id (`turn_…`) */
            id: string;
            session_id: string;
            /** @enum {string} */
            kind: "direct" | "prompt";
            /**
             * @description `awaiting_permission` while a permission request is pending; `awaiting_input` while only questions or client-tool requests are
             * @enum {string}
             */
            status: "running" | "awaiting_permission" | "awaiting_input" | "completed" | "failed" | "cancelled" | "interrupted";
            tool_uses: components["schemas"]["ToolUse"][];
            /** @description One per finished tool_use, in the order of `tool_uses` */
            results: components["schemas"]["ToolResult"][];
            /** @description Ids of the pending permission requests (`perm_…`), questions (`q_…`) and client-tool requests (`ct_…`) the turn waits on */
            pending: string[];
            error?: components["schemas"]["TurnError"];
            /** @description Prompt turns: the prompt as posted */
            prompt?: components["schemas"]["PromptTextBlock"][];
            /** @description Prompt turns: this turn's conversation — the user message (prompt plus hook context), then each assistant message and the user message pairing its tool_uses with their tool_results */
            messages?: components["schemas"]["Message"][];
            /** @description Prompt turns: why the loop ended (`end_turn`, `max_tokens`, `stop_hook`, … — the model's last stop reason otherwise) */
            stop_reason?: string;
            usage?: components["schemas"]["Usage"];
            /** @description Prompt turns: model calls made */
            model_calls?: number;
            budget?: components["schemas"]["Budget"];
            compaction?: components["schemas"]["Compaction"];
            /**
             * Format: date-time
             * @description Creation time
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When the turn reached a final status
             */
            ended_at?: string;
            /**
             * Format: date-time
             * @description When a rewind with `conversation: true` dropped this turn from the transcript later prompt turns see
             */
            rewound_at?: string;
        };
        TurnList: {
            items: components["schemas"]["Turn"][];
        };
        /** @description Write, Edit, MultiEdit, Memory: the change to one file */
        DiffPreview: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "diff";
            /** @description The file, as the workspace shows it */
            path: string;
            /**
             * @description `create`: the file does not exist yet; `delete`: it would be removed (Memory)
             * @enum {string}
             */
            operation: "create" | "update" | "delete";
            /** @description The unified diff against the file as it is (a new file: all its lines added); at most 20,000 characters */
            diff?: string;
            /** @description The diff is longer than shown */
            truncated?: boolean;
            /** @description With `truncated`: the whole diff, at GET /v1/sessions/{session_id}/outputs/{output_id} */
            output_id?: string;
            /** @description With `output_id`: SHA-256 (hex) of the whole diff, so the chained permission.requested event pins the output */
            output_sha256?: string;
            additions?: number;
            deletions?: number;
            /** @description SHA-256 of the file as it was when asked (null: it did not exist, or was not read) */
            before_sha256: string | null;
            before_bytes?: number;
            /** @description SHA-256 of the content the call would write */
            after_sha256?: string;
            after_bytes?: number;
            /** @description Not text (a NUL byte, or not UTF-8): sizes and digests only */
            binary?: boolean;
            /** @description Why there is no diff: a rule hides the file from the session, it is too large, it is not a regular file, the edit would fail (the call will say so too) */
            not_shown?: string;
            /** @description The target changed between the request and its answer: what the call does now was evaluated again when it went on, and may differ from this preview */
            stale?: boolean;
        };
        CommandPart: {
            /** @description One simple command of the line, as the analyser decoded it */
            command: string;
            read_only: boolean;
            /** @description Found inside a substitution, `bash -c`, `eval`, `xargs`, `find -exec`, … */
            nested: boolean;
            /**
             * @description What the rules say of this part alone
             * @enum {string}
             */
            verdict: "allow" | "ask" | "deny";
            /**
             * @description `rule`: the rule in `rule`; `read_only`: it only reads; `none`: no rule allows it and it is not read-only
             * @enum {string}
             */
            decided_by: "rule" | "read_only" | "none";
            rule?: string;
            /** @description This part is why the call asks (or is denied) */
            asks: boolean;
            /** @description Words that make it write files or run code beyond what its name says */
            dangers: string[];
        };
        /** @description Bash and terminal input: the line split into its parts, each with its analysis */
        CommandPreview: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "command";
            /** @description The command line (at most 20,000 characters shown) */
            command: string;
            /** @description False: the line could not be analysed (the reason says why); the whole line asks */
            analysed: boolean;
            /** @description Why the call asks, as the permission stages said */
            reason: string;
            /** @description Each distinct simple command, in order (at most 200) */
            parts: components["schemas"]["CommandPart"][];
            redirects: {
                op: string;
                target: string | null;
                writes: boolean;
            }[];
            /** @description The target changed between the request and its answer: what the call does now was evaluated again when it went on, and may differ from this preview */
            stale?: boolean;
        };
        /** @description WebFetch and a process's connection (`Network`): where it goes */
        NetworkPreview: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "network";
            /** @description WebFetch: the URL (credentials removed) */
            url?: string;
            scheme: string;
            host: string;
            port: number | null;
            /** @description The address when the host is one; a name is not looked up before the approval (a lookup would already send it out) */
            address: string | null;
            /** @description The target changed between the request and its answer: what the call does now was evaluated again when it went on, and may differ from this preview */
            stale?: boolean;
        };
        /** @description An MCP server's tool: which server, which tool, with what */
        McpPreview: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "mcp";
            server: string;
            /** @description The tool's name on its server */
            tool: string;
            input: unknown;
            /** @description The server's own annotations of the tool (readOnlyHint, destructiveHint, …): the server's claims, not checked */
            annotations: {
                [key: string]: unknown;
            } | null;
            /** @description The target changed between the request and its answer: what the call does now was evaluated again when it went on, and may differ from this preview */
            stale?: boolean;
        };
        /** @description ExitPlanMode: the plan to approve */
        PlanPreview: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "plan";
            plan: string;
            /** @description The target changed between the request and its answer: what the call does now was evaluated again when it went on, and may differ from this preview */
            stale?: boolean;
        };
        /** @description What the call would do, computed when it asked */
        PermissionPreview: components["schemas"]["DiffPreview"] | components["schemas"]["CommandPreview"] | components["schemas"]["NetworkPreview"] | components["schemas"]["McpPreview"] | components["schemas"]["PlanPreview"];
        PermissionRequest: {
            /** @description Server-made permission id (`perm_…`) */
            id: string;
            session_id: string;
            turn_id: string;
            tool_use_id: string;
            tool: string;
            /** @description The input the call would run with if allowed. `tool: "Network"`: `{host, port, scheme}`; `tool: "Budget"`: `{scope (turn, session, tenant), unit (usd, tokens), spent, limit, next_call_max}` */
            input: unknown;
            /** @description Why a person is asked */
            reason: string;
            preview?: components["schemas"]["PermissionPreview"];
            /** @description Rule strings a client can offer as "always allow" */
            suggestions: string[];
            /** @enum {string} */
            status: "pending" | "allowed" | "denied" | "cancelled";
            /**
             * @description Who or what resolved the request; `rule`: a rule added later (remember, PATCH), a mode change or a reloaded tenant policy decided it; `restart`: a connection's request (`tool: "Network"`) outstanding when the server stopped, refused
             * @enum {string}
             */
            resolved_by?: "client" | "timeout" | "cancel" | "session_closed" | "rule" | "restart";
            /** @description With resolved_by `rule`: the rule(s) that decided */
            rules?: string[];
            /** @description With resolved_by `client`: the name of the API key that answered (absent without keys) */
            answered_by?: string;
            /** @description Denial message given to the model */
            message?: string;
            updated_input?: unknown;
            remember?: string[];
            /** @description ExitPlanMode: the mode the approval chose to switch to */
            mode?: string;
            interrupt?: boolean;
            /**
             * Format: date-time
             * @description Creation time
             */
            created_at: string;
            /**
             * Format: date-time
             * @description Resolution time
             */
            resolved_at?: string;
        };
        PermissionList: {
            items: components["schemas"]["PermissionRequest"][];
        };
        /** @description One permission decision about one tool call: what decided, why, and about which exact input */
        Decision: {
            /** @description Per-session order of decisions */
            seq: number;
            session_id: string;
            turn_id: string;
            tool_use_id: string;
            tool: string;
            /** @enum {string} */
            behavior: "allow" | "deny" | "ask";
            /**
             * @description `rule`, `mode`, `tool` (its own check), `read_only`, `protected_path`: the evaluation; `person`: a client answered; `timeout`, `cancel`: an ask ended without an answer; `hook`: a PreToolUse hook blocked the call; `policy`: a deny rule of the tenant's policy (`disallowed_tools` in NORMA_API_KEYS_FILE)
             * @enum {string}
             */
            decided_by: "rule" | "mode" | "tool" | "read_only" | "protected_path" | "person" | "timeout" | "cancel" | "hook" | "policy";
            /** @description The rule text(s) that decided, if any */
            rules: string[];
            mode: components["schemas"]["PermissionMode"];
            reason: string;
            /** @description SHA-256 of the canonical JSON of the input this decision is about */
            input_digest: string;
            /**
             * @description Where that input came from: the call itself, or a rewrite by the tool's check, an approval's updated_input, or a PreToolUse hook
             * @enum {string}
             */
            input_source: "call" | "tool" | "approval" | "hook";
            /** @description The permission request this decision opened or resolved */
            permission_id?: string;
            /**
             * Format: date-time
             * @description When it was decided
             */
            created_at: string;
            /** @description SHA-256 of the previous decision's hash (64 zeros for the first), a newline, and this decision's RFC 8785 canonical JSON without `hash`; absent on decisions stored before the chain existed */
            hash?: string;
        };
        DecisionList: {
            items: components["schemas"]["Decision"][];
            /** @description Pass as `after` for the next page; null at the end */
            next_after: number | null;
        };
        /** @description Run the call (with `updated_input` if given), optionally remembering allow rules */
        PermissionAllow: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            behavior: "allow";
            /** @description Run with this input instead (validated again) */
            updated_input?: unknown;
            /** @description Allow rules to add to the session; a key without `write` may name only the request's `suggestions` */
            remember?: string[];
            /**
             * @description ExitPlanMode only: the mode to switch to; default the mode before plan mode (a key without `write` may choose only that one or a stricter one)
             * @enum {string}
             */
            mode?: "default" | "acceptEdits" | "bypassPermissions" | "dontAsk" | "auto";
        };
        /** @description Refuse the call */
        PermissionDeny: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            behavior: "deny";
            /** @description Why, for the model (its is_error tool_result says it) */
            message?: string;
            /** @description Also stop the rest of the turn */
            interrupt?: boolean;
        };
        /** @description Allow (`behavior: "allow"`) or deny (`behavior: "deny"`) the call */
        PermissionResponse: components["schemas"]["PermissionAllow"] | components["schemas"]["PermissionDeny"];
        QuestionItem: {
            /** @description The question, ending with a question mark; unique within the call */
            question: string;
            /** @description A very short label shown as a chip or tag (e.g. "Auth method") */
            header?: string;
            /** @description 2–4 choices; a person may also answer in free text */
            options: {
                /** @description What the person picks (and what the answer names) */
                label: string;
                /** @description What choosing it means */
                description?: string;
            }[];
            /**
             * @description Several options may be chosen
             * @default false
             */
            multiSelect: boolean;
        };
        Question: {
            /** @description Server-made question id (`q_…`) */
            id: string;
            session_id: string;
            turn_id: string;
            tool_use_id: string;
            questions: components["schemas"]["QuestionItem"][];
            /** @enum {string} */
            status: "pending" | "answered" | "dismissed" | "timed_out" | "cancelled";
            /** @description Answered: for each question text, the chosen label (or labels, multiSelect) or a free-text answer */
            answers?: {
                [key: string]: string | string[];
            };
            /** @description Free text the person added to the answers */
            response?: string;
            /** @description Dismissed, timed out or cancelled: why, as the model is told */
            message?: string;
            /**
             * @description Who or what resolved the question
             * @enum {string}
             */
            resolved_by?: "client" | "timeout" | "cancel" | "session_closed";
            /** @description With resolved_by `client`: the name of the API key that answered (absent without keys) */
            answered_by?: string;
            /**
             * Format: date-time
             * @description Creation time
             */
            created_at: string;
            /**
             * Format: date-time
             * @description Resolution time
             */
            resolved_at?: string;
        };
        QuestionList: {
            items: components["schemas"]["Question"][];
        };
        /** @description Answers (`answers`, optional `response`), or a dismissal (`dismiss: true`) */
        QuestionResponse: {
            /** @description For each question text: the label of an offered option, several labels (multiSelect), or free text. Every question needs an answer unless `response` says it all. */
            answers: {
                [key: string]: string | string[];
            };
            /** @description Free text for the model besides (or instead of) the choices */
            response?: string;
        } | {
            /** @enum {boolean} */
            dismiss: true;
            /** @description Why, for the model */
            message?: string;
        };
        /** @description A tool the session's client runs: the model may call it, the call waits for the client's answer */
        ClientToolDefinition: {
            /** @description The name the model calls it by: not a built-in tool's name, not `mcp__…`, unique in the session */
            name: string;
            /** @description What the tool does and when to use it, for the model */
            description: string;
            /** @description JSON Schema (2020-12 unless `$schema` names 2019-09 or draft-07) of the input, describing an object (`"type": "object"`); at most 64 KiB and 32 levels deep. A call whose input does not match it is an error result, and the client is not asked */
            input_schema: {
                [key: string]: unknown;
            };
        };
        /** @description A call of a client tool waiting for (or answered by) the client. The answer's content is not kept here: it is the call's tool_result (capped, with its spill file) */
        ClientToolRequest: {
            /** @description Server-made request id (`ct_…`) */
            id: string;
            session_id: string;
            turn_id: string;
            /** @description The call the answer becomes the tool_result of */
            tool_use_id: string;
            /** @description The client tool called */
            name: string;
            /** @description The call's input, valid against the tool's input_schema (as PreToolUse hooks left it) */
            input: unknown;
            /** @enum {string} */
            status: "pending" | "answered" | "timed_out" | "cancelled";
            /** @description Answered: whether the client reported an error */
            is_error?: boolean;
            /** @description Timed out or cancelled: why, as the model is told */
            message?: string;
            /**
             * @description Who or what resolved the request
             * @enum {string}
             */
            resolved_by?: "client" | "timeout" | "cancel" | "session_closed";
            /** @description With resolved_by `client`: the name of the API key that answered (absent without keys) */
            answered_by?: string;
            /**
             * Format: date-time
             * @description Creation time
             */
            created_at: string;
            /**
             * Format: date-time
             * @description Resolution time
             */
            resolved_at?: string;
        };
        ClientToolRequestList: {
            items: components["schemas"]["ClientToolRequest"][];
        };
        /** @description The client's answer to a client-tool request */
        ClientToolResponse: {
            /** @description What the tool returned: the call's tool_result content (text passes the session's output cap; the rest is kept as a spill file) */
            content: string | (components["schemas"]["TextBlock"] | components["schemas"]["ImageBlock"])[];
            /** @description The tool failed: the tool_result is an error result. Default: `false`. */
            is_error?: boolean;
        };
        /** @description The session a pending item belongs to, as a person needs it to decide */
        PendingSession: {
            id: string;
            name: string | null;
            labels: {
                [key: string]: string;
            };
            permission_mode: components["schemas"]["PermissionMode"];
        };
        /** @description A permission request; answer with POST /v1/sessions/{session_id}/permissions/{id} */
        PendingPermission: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "permission";
            session: components["schemas"]["PendingSession"];
            permission: components["schemas"]["PermissionRequest"];
        };
        /** @description A question; answer with POST /v1/sessions/{session_id}/questions/{id} */
        PendingQuestion: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            kind: "question";
            session: components["schemas"]["PendingSession"];
            question: components["schemas"]["Question"];
        };
        /** @description Something waiting for a person */
        PendingItem: components["schemas"]["PendingPermission"] | components["schemas"]["PendingQuestion"];
        PendingList: {
            /** @description Oldest first */
            items: components["schemas"]["PendingItem"][];
            /** @description Pass as `cursor` for the next page */
            next_cursor: string | null;
        };
        TodoItem: {
            /** @description What is to be done, imperative ("Run the tests") */
            content: string;
            /** @enum {string} */
            status: "pending" | "in_progress" | "completed";
            /** @description The same in the present continuous, shown while it is in progress ("Running the tests") */
            activeForm: string;
        };
        TodoList: {
            items: components["schemas"]["TodoItem"][];
            /** @description When TodoWrite last replaced the list; null: never */
            updated_at: string | null;
        };
        MemoryFile: {
            /** @description As the Memory tool names it: `/memories/…` */
            path: string;
            bytes: number;
            sha256: string;
            /** Format: date-time */
            modified_at: string;
        };
        MemoryListing: {
            /** @description The named store (`memory_store`), or `session` for the session's private one */
            store: string;
            items: components["schemas"]["MemoryFile"][];
        };
        Skill: {
            name: string;
            description: string;
            /** @description Deferred tools invoking the skill unlocks */
            allowed_tools: string[];
            /**
             * @description `operator`: NORMA_SKILLS_DIR; `workspace`: `.norma/skills/`
             * @enum {string}
             */
            source: "operator" | "workspace";
            /** @description SHA-256 of its SKILL.md when the session was made */
            sha256: string;
            /** @description Invoked in this session (its folder is readable by the file tools) */
            used: boolean;
        };
        SkillList: {
            items: components["schemas"]["Skill"][];
        };
        /** @description A spill file: the full text of a capped tool_result block, with its provenance */
        Output: {
            /** @description Server-made output id (`out_…`) */
            id: string;
            session_id: string;
            turn_id: string;
            tool_use_id: string;
            tool: string;
            /** @description The capped block of the tool_result this output completes */
            block_index: number;
            /**
             * @description The whole diff of the call's permission request preview (not a block of its result)
             * @enum {string}
             */
            of?: "preview";
            /** @description Size of the full output in UTF-8 bytes */
            bytes: number;
            /** @description Length of the full output in Unicode code points */
            chars: number;
            /** @description SHA-256 (hex) of the full output, computed while it was written */
            sha256: string;
            /**
             * @description `expired`: removed by retention (age or the per-session byte budget); the record stays as evidence
             * @enum {string}
             */
            status: "available" | "expired";
            /**
             * Format: date-time
             * @description When the output was written
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When retention removed the file
             */
            expired_at?: string;
        };
        OutputList: components["schemas"]["Output"][];
        /** @description A recorded state of the session's workspace */
        Checkpoint: {
            /** @description Server-made checkpoint id (`ckpt_…`) */
            id: string;
            /** @description The turn it was made in; null for those a rewind or fork made */
            turn_id: string | null;
            /** @description The call it was made before (`before_call`) or after (`after_call`) */
            tool_use_id?: string;
            /**
             * @description When it was made: as a turn started or ended (its end only when the workspace changed after the turn's last checkpoint), before or after a call that may change the workspace, just before a rewind (the checkpoint that undoes it) and just after, or as a fork's workspace was filled
             * @enum {string}
             */
            reason: "turn_start" | "before_call" | "after_call" | "turn_end" | "before_rewind" | "after_rewind" | "fork";
            /**
             * Format: date-time
             * @description When it was made
             */
            created_at: string;
            /** @description Files and links it holds */
            files: number;
            /** @description Bytes of those files, as the workspace had them */
            bytes: number;
            /** @description Bytes it added to the session's checkpoint store (content stored before costs nothing) */
            added_bytes: number;
            /** @description Entries it did not capture: special files, files over the size bound or the budget (GET …/checkpoints/{id} lists them) */
            not_captured: number;
            /** @description False: something other than special files was not captured (over the budget, written while it was read); a rewind to it leaves those paths alone */
            complete: boolean;
            warnings: string[];
        };
        CheckpointList: {
            items: components["schemas"]["Checkpoint"][];
            /** @description Pass as `cursor` for the next page */
            next_cursor: string | null;
        };
        CheckpointDetail: {
            checkpoint: components["schemas"]["Checkpoint"];
            /** @description What it did not capture, and why */
            not_captured: {
                path: string;
                reason: string;
            }[];
        };
        /** @description One path that differs (a rename is a deletion and an addition; a link is compared by its target) */
        FileChange: {
            /** @description Relative to the workspace */
            path: string;
            /** @enum {string} */
            status: "added" | "modified" | "deleted";
            binary: boolean;
            before_sha256?: string;
            after_sha256?: string;
            additions: number;
            deletions: number;
        };
        ChangeList: {
            /** @description The checkpoint compared from */
            from: string;
            /** @description The checkpoint compared to, or `current` */
            to: string;
            files: components["schemas"]["FileChange"][];
        };
        CallChanges: {
            /** @description The checkpoint made before the call (rewind to it to undo the call); null when none could be made */
            checkpoint_id: string | null;
            /** @description False: the checkpoint before the call did not capture everything (over the budget, a full disk): the call cannot be undone whole */
            undoable: boolean;
            /** @description What the call changed, by any process of the session, while it ran: the first 1,000 paths */
            files: components["schemas"]["FileChange"][];
            /** @description How many paths it changed (more than `files` holds past 1,000: GET …/changes lists them all) */
            files_total: number;
            warnings: string[];
        };
        RewindRequest: {
            /** @description A checkpoint id, or a turn id: the workspace just before that turn started */
            to: string;
            /** @description Only these paths (globs relative to the workspace, gitignore-style; a directory takes what is below it); default: the whole workspace */
            paths?: string[];
            /** @description Prompt sessions: also drop the transcript of the turns from that point on, so the model does not remember undone work */
            conversation?: boolean;
            /** @description Say what would happen (conflicts included); change nothing */
            dry_run?: boolean;
            /** @description Rewind paths something other than the session changed, too */
            force?: boolean;
        };
        RewindResult: {
            /** @description Paths written (or directories made) to match the checkpoint */
            restored: string[];
            /** @description Paths removed (the checkpoint does not have them) */
            deleted: string[];
            conflicts: {
                path: string;
                reason: string;
            }[];
            /** @description Paths the checkpoint did not capture: left as they are */
            skipped: string[];
            /** @description The checkpoint made just before rewinding (rewind to it to undo this rewind); null in a dry run */
            checkpoint_id: string | null;
            /** @description With `conversation`: the turns whose transcript the model no longer sees */
            dropped_turns: string[];
            dry_run: boolean;
        };
        ForkRequest: {
            /** @description A checkpoint id, or a turn id (the workspace just before that turn); default: the workspace now */
            at?: string;
        };
        /** @description The session and checkpoint a fork was made from */
        ForkedFrom: {
            session_id: string;
            checkpoint_id: string;
        };
        Health: {
            /** @enum {string} */
            status: "ok";
        };
        Readiness: {
            /** @enum {string} */
            status: "ready" | "unready";
            /** @description This replica (NORMA_NODE_ID; default: the host name). Replicas sharing a PostgreSQL database each have their own. */
            node_id: string;
            checks: {
                name: string;
                ok: boolean;
                /** @description Whether readiness depends on this check */
                required: boolean;
                detail: string;
            }[];
        };
        /** @description The session was created */
        EventSessionCreated: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "session.created";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            session: components["schemas"]["Session"];
        };
        /** @description Mode, rules, unlocks or used skills changed (PATCH, `remember`, a tool's result, ExitPlanMode's approval) */
        EventSessionUpdated: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "session.updated";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            session: components["schemas"]["Session"];
        };
        /** @description The session was closed; the final event of a session */
        EventSessionClosed: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "session.closed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            reason: string;
        };
        /** @description A turn began */
        EventTurnStarted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "turn.started";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            /** @enum {string} */
            kind: "direct" | "prompt";
            /** @description Direct turns: the calls; prompt turns: empty (calls arrive with `message.completed`) */
            tool_uses: components["schemas"]["ToolUse"][];
            prompt?: {
                /** @enum {string} */
                type: "text";
                text: string;
            }[];
        };
        /** @description A tool call passed validation, permission and hooks and is running */
        EventToolStarted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "tool.started";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            /** @description Set for a subagent's own calls and messages: the Agent call they belong to */
            parent_tool_use_id?: string;
            tool_use_id: string;
            tool: string;
            input: unknown;
        };
        /** @description Live output of a running call (live-only: not replayed) */
        EventToolProgress: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "tool.progress";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            /** @description Set for a subagent's own calls and messages: the Agent call they belong to */
            parent_tool_use_id?: string;
            tool_use_id: string;
            chunk: string;
        };
        /** @description A call waits for a person's decision */
        EventPermissionRequested: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "permission.requested";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            permission: components["schemas"]["PermissionRequest"];
        };
        /** @description A permission request was answered, timed out or cancelled */
        EventPermissionResolved: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "permission.resolved";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            permission: components["schemas"]["PermissionRequest"];
        };
        /** @description A call (AskUser) waits for a person to answer questions */
        EventQuestionAsked: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "question.asked";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            question: components["schemas"]["Question"];
        };
        /** @description A question was answered, dismissed, timed out or cancelled (its `status` says which) */
        EventQuestionAnswered: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "question.answered";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            question: components["schemas"]["Question"];
        };
        /** @description A call of a client tool waits for the client to run it and answer (POST …/client-tools/{request_id}) */
        EventClientToolRequested: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "client_tool.requested";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            request: components["schemas"]["ClientToolRequest"];
        };
        /** @description A client-tool request was answered, timed out or cancelled (its `status` says which); the answer itself is the call's tool_result (tool.completed) */
        EventClientToolResolved: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "client_tool.resolved";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            request: components["schemas"]["ClientToolRequest"];
        };
        /** @description TodoWrite replaced the session's todo list */
        EventTodoUpdated: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "todo.updated";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            tool_use_id: string;
            items: components["schemas"]["TodoItem"][];
            /** Format: date-time */
            updated_at: string;
        };
        /** @description A call ended; carries its paired tool_result */
        EventToolCompleted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "tool.completed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            /** @description Set for a subagent's own calls and messages: the Agent call they belong to */
            parent_tool_use_id?: string;
            tool_use_id: string;
            tool: string;
            result: components["schemas"]["ToolResult"];
            changes?: components["schemas"]["CallChanges"];
        };
        /** @description A background task (Bash run_in_background) started */
        EventTaskStarted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "task.started";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            task_id: string;
            command: string;
            turn_id: string;
            tool_use_id: string;
        };
        /** @description A background task ended (exited, was stopped, or the session closed) */
        EventTaskCompleted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "task.completed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            task_id: string;
            /** @enum {string} */
            status: "exited" | "stopped" | "failed";
            exit_code: number | null;
            signal: string | null;
            output_bytes: number;
        };
        /** @description Every tool_use of the turn has its tool_result */
        EventTurnCompleted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "turn.completed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn: components["schemas"]["Turn"];
        };
        /** @description The turn failed; unfinished calls got error results */
        EventTurnFailed: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "turn.failed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn: components["schemas"]["Turn"];
        };
        /** @description The turn was cancelled or interrupted by a denial */
        EventTurnCancelled: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "turn.cancelled";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn: components["schemas"]["Turn"];
        };
        /** @description The server stopped under the turn (shutdown, crash): calls that were running or had not started got error results */
        EventTurnInterrupted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "turn.interrupted";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn: components["schemas"]["Turn"];
        };
        /** @description After a restart, a turn paused on permission requests, questions or client-tool requests is live again; they can be answered */
        EventTurnResumed: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "turn.resumed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            /** @description The permission requests, questions and client-tool requests it waits for */
            pending: string[];
        };
        /** @description A hook ran (its decision and rewrite, if any); part of the audit trail */
        EventHookCompleted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "hook.completed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            /** @description The hook: its place in the session's `hooks` (e.g. `hooks.PreToolUse[0].hooks[0]`) or an operator hook's name */
            hook: string;
            /** @enum {string} */
            kind: "in-process" | "command" | "http";
            /** @description The hook event */
            event: string;
            turn_id?: string;
            tool_use_id?: string;
            duration_ms: number;
            /** @enum {string} */
            outcome: "ok" | "blocked";
            /** @enum {string} */
            decision?: "allow" | "deny" | "ask";
            /** @description SHA-256 of the input the hook asked to run with */
            rewrite_digest?: string;
        };
        /** @description A hook timed out, crashed, exited with an error status or printed invalid output */
        EventHookFailed: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "hook.failed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            hook: string;
            /** @enum {string} */
            kind: "in-process" | "command" | "http";
            event: string;
            turn_id?: string;
            tool_use_id?: string;
            duration_ms: number;
            /**
             * @description `error`: reported, the chain went on; `failed` (timeout, crash): in PreToolUse the call was blocked (fail-closed)
             * @enum {string}
             */
            outcome: "error" | "failed";
            error: string;
        };
        /** @description Assistant text as the model streams it (prompt turns; live-only: not replayed) */
        EventMessageDelta: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "message.delta";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            /** @description Set for a subagent's own calls and messages: the Agent call they belong to */
            parent_tool_use_id?: string;
            /** @description Position of the assistant message in the turn's `messages` */
            message_index: number;
            /** @description Position of the text block in that message */
            block_index: number;
            text: string;
            /** @description The model call is being retried: drop the text streamed so far for this message */
            reset?: boolean;
        };
        /** @description A compaction of the conversation began (prompt sessions) */
        EventCompactionStarted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "compaction.started";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            /** @description The turn it happens in; null: on demand between turns */
            turn_id: string | null;
            compaction_id: string;
            /** @enum {string} */
            trigger: "auto" | "manual" | "overflow";
            tokens_before: number;
        };
        /** @description A compaction is in force: what it left out and what it kept; part of the audit trail (the full transcript stays in the turns) */
        EventCompactionCompleted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "compaction.completed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            /** @description The turn it is recorded on (its `compaction`) */
            turn_id: string;
            compaction_id: string;
            /**
             * @description `auto`: the threshold was passed; `manual`: POST …/compact; `overflow`: the provider said the context was too long
             * @enum {string}
             */
            trigger: "auto" | "manual" | "overflow";
            /**
             * @description `elided`: leaving out old tool results (each replaced by a note naming where its full text stays) was enough; `summarised`: the older messages were summarised by the session's model
             * @enum {string}
             */
            stage: "elided" | "summarised";
            /** @description The conversation's input tokens before (estimated) */
            tokens_before: number;
            /** @description And after */
            tokens_after: number;
            /** @description Tool results left out */
            elided_results: number;
            /** @description Messages the summary stands for */
            summarised_messages: number;
            /** @description The newest messages kept verbatim */
            kept_messages: number;
            /** @description SHA-256 (hex) of the summary text */
            summary_sha256: string | null;
        };
        /** @description A compaction could not be made; the conversation is as it was */
        EventCompactionFailed: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "compaction.failed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string | null;
            compaction_id: string;
            /** @enum {string} */
            trigger: "auto" | "manual" | "overflow";
            tokens_before: number;
            reason: string;
        };
        /** @description The model's thinking as it streams (model.thinking; prompt turns; live-only: not replayed, the whole block is in `message.completed`) */
        EventThinkingDelta: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "thinking.delta";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            parent_tool_use_id?: string;
            message_index: number;
            /** @description Position of the thinking block in that message */
            block_index: number;
            text: string;
        };
        /** @description A model call finished: the whole assistant message (prompt turns) */
        EventMessageCompleted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "message.completed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id: string;
            /** @description Set for a subagent's own calls and messages: the Agent call they belong to */
            parent_tool_use_id?: string;
            message_index: number;
            message: components["schemas"]["Message"];
            stop_reason: string;
            usage: components["schemas"]["Usage"];
        };
        /** @description One outbound request a tool, an http hook or a sandboxed process made (one per redirect hop; one per tunnel), as evidence; part of the audit trail */
        EventEgressRequest: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "egress.request";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id?: string;
            /** @description The call that made the request (a tool's), or the call a hook ran for */
            tool_use_id?: string;
            parent_tool_use_id?: string;
            /** @description The tool that made the request, or the tool of the call a hook ran for */
            tool?: string;
            /** @description Set when an http hook made the request: the hook (e.g. `hooks.PreToolUse[0].hooks[0]`) */
            hook?: string;
            /**
             * @description Set when a sandboxed process made the request through the session's egress proxy (`sandbox_network`): one per tunnel, or one per request the proxy read (plain HTTP, and HTTPS in a session with secrets, whose TLS the proxy terminates)
             * @enum {string}
             */
            via?: "sandbox_proxy";
            method: string;
            /** @description The URL of this hop */
            url: string;
            /** @description The address connected to (the proxy resolves names itself when NORMA_EGRESS_PROXY is set); empty when refused before connecting */
            address: string;
            /** @description HTTP status; null when no answer came */
            status: number | null;
            /** @description Response body bytes received */
            bytes: number;
            /** @description SHA-256 (hex) of the body bytes received */
            sha256: string | null;
            duration_ms: number;
            /** @description Why the request was refused or failed (e.g. the egress rule) */
            error?: string;
            /** @description Sandboxed processes: the host the connection or request names (its Host, CONNECT host and TLS name agree) */
            host?: string;
            port?: number;
            /**
             * @description Sandboxed processes: what the connection carried
             * @enum {string}
             */
            scheme?: "http" | "https" | "tcp";
            /** @description The Network rule(s) that allowed it (absent: the mode, or refused) */
            rules?: string[];
            /** @description Secrets the proxy put into the request, by name (never their values) */
            secrets?: string[];
            /** @description Request body bytes sent (a tunnel: bytes the process sent) */
            request_bytes?: number;
            /** @description SHA-256 (hex) of the request body as the process sent it (with placeholders, never secret values) */
            request_sha256?: string;
        };
        /** @description An MCP server of the session started, initialized and listed its tools (at creation, after a restart of the service, or after it exited) */
        EventMcpServerStarted: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "mcp.server.started";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            server: string;
            /** @description How many times it was started again after exiting */
            restarts: number;
            /** @description Full names of its tools now */
            tools: string[];
            /** @description From starting the process to the tool list */
            duration_ms: number;
        };
        /** @description An MCP server of the session exited or was stopped; `next` says what follows */
        EventMcpServerExited: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "mcp.server.exited";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            server: string;
            code: number | null;
            signal: string | null;
            /** @description Why, in words (crashed, a protocol error, closed with the session, …) */
            reason: string;
            /**
             * @description `restart`: it is started again after `restart_in_ms`
             * @enum {string}
             */
            next: "restart" | "none";
            restart_in_ms?: number;
        };
        /** @description The session's tools changed (an MCP server's list changed, or it started again with other tools) */
        EventToolsChanged: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "tools.changed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            server: string;
            added: string[];
            removed: string[];
            /** @description Tools whose description, schema or hints changed */
            changed: string[];
        };
        /** @description One request to an MCP server and its answer, as evidence (like egress.request); part of the audit trail */
        EventMcpRequest: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "mcp.request";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            turn_id?: string;
            tool_use_id?: string;
            server: string;
            /** @description The JSON-RPC method (`tools/call`, `resources/read`, …) */
            method: string;
            /** @description With tools/call: the server's name of the tool called */
            tool?: string;
            request_bytes: number;
            response_bytes: number;
            /** @description SHA-256 (hex) of the request message as sent */
            request_sha256: string;
            /** @description SHA-256 (hex) of the response message; null when none came */
            response_sha256: string | null;
            /**
             * @description `error`: a JSON-RPC error answer; `no_response`: it timed out, was cancelled or the server went away
             * @enum {string}
             */
            outcome: "ok" | "error" | "no_response";
            error?: string;
            duration_ms: number;
        };
        /** @description An MCP client opened (or, on another server or after a restart, took up again) an MCP session on this session at /mcp; part of the audit trail */
        EventMcpClientConnected: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "mcp.client.connected";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            /** @description SHA-256 (hex) of the MCP session id (the id itself is not stored) */
            mcp_session: string;
            /** @description What the client said it is (initialize's clientInfo), shortened */
            client: {
                name: string;
                version: string;
            };
            protocol_version: string;
            /** @description The client declared form elicitation: permission requests and questions of its calls are asked through it too */
            elicitation: boolean;
            /** @description True: the client attached to an existing session (`?session=`); false: the session was made for it */
            attached: boolean;
            /** @description The name of the key that connected (null: the loopback caller of a server without keys) */
            key: string | null;
        };
        /** @description An MCP session at /mcp ended (the client sent DELETE); part of the audit trail */
        EventMcpClientClosed: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "mcp.client.closed";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            mcp_session: string;
            /** @description Whether the Norma session is closed with it (a session made for the client, with NORMA_MCP_SESSION_END=close) */
            session_closed: boolean;
        };
        /** @description The workspace was rewound to a checkpoint (POST …/rewind, or a rewind a crash interrupted, finished at start-up); part of the audit trail */
        EventWorkspaceRewound: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "workspace.rewound";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            /** @description The checkpoint rewound to */
            to: string;
            /** @description The checkpoint made just before (rewind to it to undo this one) */
            checkpoint_id: string;
            /** @description The checkpoint of the workspace as the rewind left it */
            after_checkpoint_id: string | null;
            restored: string[];
            deleted: string[];
            /** @description Conflicting paths rewound because the request said `force` */
            forced: string[];
            /** @description The globs the rewind was limited to; null: the whole workspace */
            paths: string[] | null;
            dropped_turns: string[];
            /** @description The key id that asked (null: the loopback caller of a server without keys, or the server finishing an interrupted rewind) */
            by: string | null;
            /** @description True: a rewind a crash interrupted, finished at start-up */
            recovered: boolean;
        };
        /** @description Sent by the server just before it ends this SSE stream (shutdown, the client read too slowly, or the key it was opened with was removed or expired); not stored. Reconnect with Last-Event-ID (or ?after=) set to `resume_after` to continue without a gap (after `revoked`: with a valid key). */
        EventStreamEnd: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "stream.end";
            session_id: string;
            /** @description Per-session sequence number (the SSE `id`); live-only events repeat the last durable seq */
            seq: number;
            /** Format: date-time */
            time: string;
            /** @description Durable events: SHA-256 of the previous event's hash (64 zeros for the first), a newline, and this event's RFC 8785 canonical JSON without `hash` (GET …/verify checks it). Absent on live-only events and on events stored before the chain existed */
            hash?: string;
            /** @enum {string} */
            reason: "shutdown" | "overflow" | "revoked";
            /** @description The last event id this stream delivered */
            resume_after: number;
        };
        /** @description Any SSE event; `type` tells which */
        Event: components["schemas"]["EventSessionCreated"] | components["schemas"]["EventSessionUpdated"] | components["schemas"]["EventSessionClosed"] | components["schemas"]["EventTurnStarted"] | components["schemas"]["EventToolStarted"] | components["schemas"]["EventToolProgress"] | components["schemas"]["EventPermissionRequested"] | components["schemas"]["EventPermissionResolved"] | components["schemas"]["EventQuestionAsked"] | components["schemas"]["EventQuestionAnswered"] | components["schemas"]["EventClientToolRequested"] | components["schemas"]["EventClientToolResolved"] | components["schemas"]["EventTodoUpdated"] | components["schemas"]["EventToolCompleted"] | components["schemas"]["EventTaskStarted"] | components["schemas"]["EventTaskCompleted"] | components["schemas"]["EventTurnCompleted"] | components["schemas"]["EventTurnFailed"] | components["schemas"]["EventTurnCancelled"] | components["schemas"]["EventTurnInterrupted"] | components["schemas"]["EventTurnResumed"] | components["schemas"]["EventHookCompleted"] | components["schemas"]["EventHookFailed"] | components["schemas"]["EventMessageDelta"] | components["schemas"]["EventCompactionStarted"] | components["schemas"]["EventCompactionCompleted"] | components["schemas"]["EventCompactionFailed"] | components["schemas"]["EventThinkingDelta"] | components["schemas"]["EventMessageCompleted"] | components["schemas"]["EventEgressRequest"] | components["schemas"]["EventMcpServerStarted"] | components["schemas"]["EventMcpServerExited"] | components["schemas"]["EventToolsChanged"] | components["schemas"]["EventMcpRequest"] | components["schemas"]["EventMcpClientConnected"] | components["schemas"]["EventMcpClientClosed"] | components["schemas"]["EventWorkspaceRewound"] | components["schemas"]["EventStreamEnd"];
        ChainPoint: {
            /** @description The last record covered (0: none) */
            seq: number;
            /** @description Its `hash` (64 zeros: none, or records stored before the chain existed) */
            hash: string;
        };
        /** @description A session's chain head signed by the server at a time */
        SignedHead: {
            session_id: string;
            events: components["schemas"]["ChainPoint"];
            decisions: components["schemas"]["ChainPoint"];
            /** Format: date-time */
            signed_at: string;
            /** @description The signing key (its RFC 7638 thumbprint; GET /v1/signing-key) */
            key_id: string;
            /** @enum {string} */
            alg: "EdDSA";
            /** @description Ed25519 signature (base64url) of the RFC 8785 canonical JSON of {format: "norma.chain-head", version: 1, session_id, events, decisions, signed_at, key_id} */
            signature: string;
        };
        /** @description The evidence chain of an export: check it offline with `npx norma-verify` */
        ChainExport: {
            /**
             * @description SHA-256 over RFC 8785 canonical JSON, each record after the previous one's hash
             * @enum {string}
             */
            algorithm: "norma-chain-v1";
            head: components["schemas"]["SignedHead"];
            /** @description The key that signed (compare with GET /v1/signing-key before trusting it) */
            public_key: {
                /** @enum {string} */
                kty: "OKP";
                /** @enum {string} */
                crv: "Ed25519";
                x: string;
                kid: string;
            };
        };
        /** @description Everything the server knows about one session, for audit */
        SessionExport: {
            /** @enum {string} */
            format: "norma.session-export";
            /** @enum {number} */
            version: 1;
            /** Format: date-time */
            exported_at: string;
            session: components["schemas"]["Session"];
            /** @description Oldest first, each with its tool_uses and paired results */
            turns: components["schemas"]["Turn"][];
            permissions: components["schemas"]["PermissionRequest"][];
            questions: components["schemas"]["Question"][];
            /** @description Calls of the session's client tools, oldest first */
            client_tool_requests: components["schemas"]["ClientToolRequest"][];
            todos: components["schemas"]["TodoList"];
            decisions: components["schemas"]["Decision"][];
            /** @description Spill-file records (download the files with the outputs route) */
            outputs: components["schemas"]["Output"][];
            /** @description Every durable event up to the signed head, in seq order */
            events: components["schemas"]["Event"][];
            chain: components["schemas"]["ChainExport"];
        };
        /** @description The public keys that sign chain heads (a JWK set with `key_id` naming the current one) */
        SigningKeySet: {
            /** @description The key signing now */
            key_id: string;
            /** @description Public keys as JWK, the current one first */
            keys: {
                /** @enum {string} */
                kty: "OKP";
                /** @enum {string} */
                crv: "Ed25519";
                x: string;
                kid: string;
                /** @enum {string} */
                use: "sig";
                /** @enum {string} */
                alg: "EdDSA";
                /**
                 * @description `current`: the key this server signs with; `other`: a key another replica signs with, or one used before a rotation (heads it signed still verify)
                 * @enum {string}
                 */
                status: "current" | "other";
                /**
                 * Format: date-time
                 * @description When a server first used it
                 */
                created_at: string;
            }[];
        };
        /** @description The stored chain re-read and checked; `first_broken` names the first link that fails */
        ChainVerification: {
            ok: boolean;
            session_id: string;
            /** @description Events whose hash verified */
            events: number;
            /** @description Permission decisions whose hash verified */
            decisions: number;
            /** @description Events and decisions stored before the chain existed (first, without a hash) */
            unchained: number;
            /** @description The last records that verified */
            head: {
                events: components["schemas"]["ChainPoint"];
                decisions: components["schemas"]["ChainPoint"];
            };
            /** @description The session's last signed head (signed each minute while the chain moves, and by each export); null: none yet */
            signed_head: (components["schemas"]["SignedHead"] & {
                /** @description The signature verifies under a known key, and the chain holds the hashes it signed */
                verified: boolean;
            }) | null;
            outputs: {
                /** @description Spill files whose digest a chained event carries */
                claimed: number;
                /** @description Of those, files on disk read whole and hashed (decrypted when sealed) */
                files_checked: number;
            };
            first_broken?: {
                /** @enum {string} */
                part: "events" | "decisions" | "signed_head" | "outputs";
                /** @description The event (or decision) seq where the chain first fails */
                seq: number;
                reason: string;
            };
        };
        KeyRotation: {
            /** @description The master key in use from now on */
            key_id: string;
            previous_key_id: string;
            /** @description Tenants' data keys wrapped again (nothing sealed was rewritten) */
            rewrapped: number;
        };
        /** @description Every hook run of a session (its hook.completed and hook.failed events) */
        HookRunList: {
            items: (components["schemas"]["EventHookCompleted"] | components["schemas"]["EventHookFailed"])[];
            /** @description Pass as `after` for the next page; null at the end */
            next_after: number | null;
        };
        /** @description Every outbound request tools of a session made (its egress.request events) */
        EgressList: {
            items: components["schemas"]["EventEgressRequest"][];
            /** @description Pass as `after` for the next page; null at the end */
            next_after: number | null;
        };
        /** @description Every request the session made to its MCP servers (its mcp.request events) */
        McpRequestList: {
            items: components["schemas"]["EventMcpRequest"][];
            /** @description Pass as `after` for the next page; null at the end */
            next_after: number | null;
        };
        ConsoleLogin: {
            /** @description An API key (NORMA_TOKEN or one of NORMA_API_KEYS_FILE); it is not kept by the page or sent again */
            key: string;
        };
        /** @description The console's login, or the loopback caller on a server without keys */
        ConsoleSession: {
            /** @description false: the server has no key (a loopback bind); the console needs no login and acts as the loopback caller */
            keys_required: boolean;
            /** @description The tenant whose sessions the console sees */
            tenant: string;
            /** @description The name of the key the login acts for */
            key?: string;
            /** @description What the login may do: the key's scopes with the ones they include */
            scopes: ("admin" | "write" | "approve" | "read")[];
            /**
             * Format: date-time
             * @description When the login ends (at most 12 hours after it was made; earlier if the key is removed or expires)
             */
            expires_at?: string;
        };
    };
    responses: {
        /** @description The key's scopes or its tenant's policy do not allow this, or the request's Origin is not allowed */
        Problem403: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The request's Host is not a name this server answers to (NORMA_ALLOWED_HOSTS; closes DNS rebinding) */
        Problem421: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description A limit of the tenant is reached: requests per minute, sessions, running turns, or its turns waiting to start on this server (with Retry-After when waiting helps) */
        Problem429: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The request line and header fields together are larger than the server takes (a very long URL included) */
        Problem431: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Invalid request: the detail and `errors` say what to fix */
        Problem400: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Missing, unknown or expired key (or event ticket); on a server without keys, any Authorization header sent */
        Problem401: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Request body too large */
        Problem413: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Unsupported content type (send application/json) */
        Problem415: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Internal error (details are in the server log, never in the response) */
        Problem500: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Unavailable: the server is shutting down, the store cannot be used right now, or a new turn found no place to run within the wait (with Retry-After); nothing of the request was stored */
        Problem503: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Insufficient storage: the disk is full; nothing of the request was stored, and what was stored before is intact */
        Problem507: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description No such resource */
        Problem404: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description A path parameter is longer than any id could be (URI too long) */
        Problem414: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The key's scopes or its tenant's policy do not allow this, or the request's Origin is not allowed */
        Problem403_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The request line and header fields together are larger than the server takes (a very long URL included) */
        Problem431_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Conflicts with the resource's current state (or a request with the same Idempotency-Key is still in progress) */
        Problem409: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The request's Host is not a name this server answers to (NORMA_ALLOWED_HOSTS; closes DNS rebinding) */
        Problem421_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Internal error (details are in the server log, never in the response) */
        Problem500_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Missing, unknown or expired key (or event ticket); on a server without keys, any Authorization header sent */
        Problem401_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description A limit of the tenant is reached: requests per minute, sessions, running turns, or its turns waiting to start on this server (with Retry-After when waiting helps) */
        Problem429_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The Idempotency-Key was used for another request (another method, path or body); nothing was done */
        Problem422: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Request body too large */
        Problem413_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Unsupported content type (send application/json) */
        Problem415_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Malformed JSON-RPC, a batch, a missing or unsupported MCP-Protocol-Version, a request other than initialize without Mcp-Session-Id, or an invalid query */
        Problem400_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": {
                    /** @enum {string} */
                    jsonrpc: "2.0";
                    error: {
                        code: number;
                        message: string;
                    } & {
                        [key: string]: unknown;
                    };
                    id: string | number | null;
                };
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The MCP session is unknown, ended, or not the key's tenant's (initialize again), or `?session=` names no session of the tenant */
        Problem404_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": {
                    /** @enum {string} */
                    jsonrpc: "2.0";
                    error: {
                        code: number;
                        message: string;
                    } & {
                        [key: string]: unknown;
                    };
                    id: string | number | null;
                };
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description A second GET stream of the same MCP session, or `?session=` names a closed session */
        Problem409_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/json": {
                    /** @enum {string} */
                    jsonrpc: "2.0";
                    error: {
                        code: number;
                        message: string;
                    } & {
                        [key: string]: unknown;
                    };
                    id: string | number | null;
                };
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Unavailable: the server is shutting down, the store cannot be used right now, or a new turn found no place to run within the wait (with Retry-After); nothing of the request was stored */
        Problem503_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Insufficient storage: the disk is full; nothing of the request was stored, and what was stored before is intact */
        Problem507_2: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Gone: removed by retention */
        Problem410: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The requested range is outside the resource */
        Problem416: {
            headers: {
                ETag: components["headers"]["ETag"];
                "Repr-Digest": components["headers"]["ReprDigest"];
                /** @description `bytes` */
                "Accept-Ranges"?: string;
                "Cache-Control"?: string;
                "Content-Range": components["headers"]["ContentRange"];
                "X-Request-Id": components["headers"]["XRequestId"];
                "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request's id: the client's own `X-Request-Id` when it sent a valid one (`[A-Za-z0-9._:-]`, at most 64), else one the server made; quoted in logs and 500 details */
        XRequestId: string;
        /** @description Seconds to wait before trying again */
        RetryAfter: number;
        /** @description With a tenant policy of `requests_per_minute`: requests allowed per minute */
        RateLimitLimit: number;
        /** @description With a tenant policy of `requests_per_minute`: requests left in the current minute */
        RateLimitRemaining: number;
        /** @description With a tenant policy of `requests_per_minute`: seconds until the window resets */
        RateLimitReset: number;
        /** @description The URL of the created resource */
        Location: string;
        /** @description Strong validator of the representation */
        ETag: string;
        /** @description RFC 9530 digest of the whole representation: `sha-256=:<base64>:` */
        ReprDigest: string;
        /** @description The part sent (`bytes <start>-<end>/<size>`), or the size when the range cannot be served (`bytes *\/<size>`) */
        ContentRange: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Up */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            403: components["responses"]["Problem403_2"];
            421: components["responses"]["Problem421_2"];
            431: components["responses"]["Problem431_2"];
        };
    };
    headHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Up */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            403: components["responses"]["Problem403_2"];
            421: components["responses"]["Problem421_2"];
            431: components["responses"]["Problem431_2"];
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            403: components["responses"]["Problem403_2"];
            421: components["responses"]["Problem421_2"];
            431: components["responses"]["Problem431_2"];
            /** @description Not ready: a required check failed */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    headReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            403: components["responses"]["Problem403_2"];
            421: components["responses"]["Problem421_2"];
            431: components["responses"]["Problem431_2"];
            /** @description Not ready: a required check failed */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    listSessions: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                /** @description Only sessions with this label: `key:value` (repeatable: every one must match; the value may contain `:`) */
                label?: string[];
                /** @description Only sessions with this status */
                status?: "active" | "closed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sessions, each with its `pending` count */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            413: components["responses"]["Problem413"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request (method, path, body) from the same tenant within 24 h answers what the first answered (with `Idempotent-Replayed: true`) and does nothing again, whichever replica it reaches; with another request 422, while the first is still being answered 409. A failed request leaves the key free. At most 255 of A–Z a–z 0–9 . _ ~ : + / = @ - */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["SessionCreate"];
            };
        };
        responses: {
            /** @description The created session */
            201: {
                headers: {
                    Location: components["headers"]["Location"];
                    /** @description `true` when this is the answer to an earlier request with the same Idempotency-Key */
                    "Idempotent-Replayed"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            422: components["responses"]["Problem422"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headSessions: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
                /** @description Only sessions with this label: `key:value` (repeatable: every one must match; the value may contain `:`) */
                label?: string[];
                /** @description Only sessions with this status */
                status?: "active" | "closed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sessions, each with its `pending` count */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            413: components["responses"]["Problem413"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    closeSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Closed */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    updateSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionPatch"];
            };
        };
        responses: {
            /** @description The updated session */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listSessionTools: {
        parameters: {
            query?: {
                /** @description Also list deferred tools, with their flags */
                include?: "deferred";
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tools as exposed to a model */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ToolList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headSessionTools: {
        parameters: {
            query?: {
                /** @description Also list deferred tools, with their flags */
                include?: "deferred";
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tools as exposed to a model */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ToolList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    exportSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The export */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionExport"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headExportSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The export */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionExport"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listTurns: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The turns */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    createTurn: {
        parameters: {
            query?: {
                /** @description Seconds to hold the response */
                wait?: number;
            };
            header?: {
                /** @description Makes a retry safe: the same key with the same request (method, path, body) from the same tenant within 24 h answers what the first answered (with `Idempotent-Replayed: true`) and does nothing again, whichever replica it reaches; with another request 422, while the first is still being answered 409. A failed request leaves the key free. At most 255 of A–Z a–z 0–9 . _ ~ : + / = @ - */
                "idempotency-key"?: string;
            };
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TurnCreate"];
            };
        };
        responses: {
            /** @description With `?wait`: the turn once finished or paused, or when the wait ran out */
            200: {
                headers: {
                    Location: components["headers"]["Location"];
                    /** @description `true` when this is the answer to an earlier request with the same Idempotency-Key */
                    "Idempotent-Replayed"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            /** @description The turn, running (also with `?wait` when the wait could not be done: the turn started) */
            202: {
                headers: {
                    Location: components["headers"]["Location"];
                    /** @description `true` when this is the answer to an earlier request with the same Idempotency-Key */
                    "Idempotent-Replayed"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            422: components["responses"]["Problem422"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            /** @description Not supported by this server version */
            501: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headTurns: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The turns */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    getTurn: {
        parameters: {
            query?: {
                /** @description Hold until finished or paused, at most this long */
                wait?: number;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Turn id */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The turn */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headTurn: {
        parameters: {
            query?: {
                /** @description Hold until finished or paused, at most this long */
                wait?: number;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Turn id */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The turn */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    cancelTurn: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Turn id */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cancelled turn */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Turn"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listPermissions: {
        parameters: {
            query?: {
                status?: "pending" | "allowed" | "denied" | "cancelled";
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The requests */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermissionList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headPermissions: {
        parameters: {
            query?: {
                status?: "pending" | "allowed" | "denied" | "cancelled";
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The requests */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermissionList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    getPermission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Permission request id */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermissionRequest"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    answerPermission: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request (method, path, body) from the same tenant within 24 h answers what the first answered (with `Idempotent-Replayed: true`) and does nothing again, whichever replica it reaches; with another request 422, while the first is still being answered 409. A failed request leaves the key free. At most 255 of A–Z a–z 0–9 . _ ~ : + / = @ - */
                "idempotency-key"?: string;
            };
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Permission request id */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PermissionResponse"];
            };
        };
        responses: {
            /** @description The resolved request */
            200: {
                headers: {
                    /** @description `true` when this is the answer to an earlier request with the same Idempotency-Key */
                    "Idempotent-Replayed"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermissionRequest"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            422: components["responses"]["Problem422"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headPermission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Permission request id */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermissionRequest"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listDecisions: {
        parameters: {
            query?: {
                /** @description Only decisions with a greater seq */
                after?: number;
                limit?: number;
                /** @description Only decisions of this turn */
                turn_id?: string;
                /** @description Only decisions about this call */
                tool_use_id?: string;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of decisions */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecisionList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headDecisions: {
        parameters: {
            query?: {
                /** @description Only decisions with a greater seq */
                after?: number;
                limit?: number;
                /** @description Only decisions of this turn */
                turn_id?: string;
                /** @description Only decisions about this call */
                tool_use_id?: string;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of decisions */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecisionList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listHookRuns: {
        parameters: {
            query?: {
                after?: number;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of hook runs */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HookRunList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headHookRuns: {
        parameters: {
            query?: {
                after?: number;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of hook runs */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HookRunList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listEgress: {
        parameters: {
            query?: {
                after?: number;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of outbound requests */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EgressList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headEgress: {
        parameters: {
            query?: {
                after?: number;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of outbound requests */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EgressList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listMcpRequests: {
        parameters: {
            query?: {
                after?: number;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of MCP requests */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpRequestList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headMcpRequests: {
        parameters: {
            query?: {
                after?: number;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of MCP requests */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpRequestList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listQuestions: {
        parameters: {
            query?: {
                status?: "pending" | "answered" | "dismissed" | "timed_out" | "cancelled";
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The questions */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QuestionList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headQuestions: {
        parameters: {
            query?: {
                status?: "pending" | "answered" | "dismissed" | "timed_out" | "cancelled";
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The questions */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QuestionList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    getQuestion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Question id */
                question_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The question */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Question"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    answerQuestion: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request (method, path, body) from the same tenant within 24 h answers what the first answered (with `Idempotent-Replayed: true`) and does nothing again, whichever replica it reaches; with another request 422, while the first is still being answered 409. A failed request leaves the key free. At most 255 of A–Z a–z 0–9 . _ ~ : + / = @ - */
                "idempotency-key"?: string;
            };
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Question id */
                question_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QuestionResponse"];
            };
        };
        responses: {
            /** @description The resolved question */
            200: {
                headers: {
                    /** @description `true` when this is the answer to an earlier request with the same Idempotency-Key */
                    "Idempotent-Replayed"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Question"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            422: components["responses"]["Problem422"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headQuestion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Question id */
                question_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The question */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Question"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listClientToolRequests: {
        parameters: {
            query?: {
                status?: "pending" | "answered" | "timed_out" | "cancelled";
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client-tool requests */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientToolRequestList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headClientToolRequests: {
        parameters: {
            query?: {
                status?: "pending" | "answered" | "timed_out" | "cancelled";
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client-tool requests */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientToolRequestList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    getClientToolRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Client-tool request id */
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client-tool request */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientToolRequest"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    answerClientTool: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request (method, path, body) from the same tenant within 24 h answers what the first answered (with `Idempotent-Replayed: true`) and does nothing again, whichever replica it reaches; with another request 422, while the first is still being answered 409. A failed request leaves the key free. At most 255 of A–Z a–z 0–9 . _ ~ : + / = @ - */
                "idempotency-key"?: string;
            };
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Client-tool request id */
                request_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ClientToolResponse"];
            };
        };
        responses: {
            /** @description The answered request */
            200: {
                headers: {
                    /** @description `true` when this is the answer to an earlier request with the same Idempotency-Key */
                    "Idempotent-Replayed"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientToolRequest"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            422: components["responses"]["Problem422"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headClientToolRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Client-tool request id */
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client-tool request */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClientToolRequest"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listPending: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of what waits */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PendingList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            413: components["responses"]["Problem413"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headPending: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of what waits */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PendingList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            413: components["responses"]["Problem413"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    streamTenantEvents: {
        parameters: {
            query?: {
                /** @description Resume after this cursor (an event's `id`) */
                after?: string;
                /** @description Only events of these types */
                type?: string[];
            };
            header?: {
                /** @description The last cursor received */
                "last-event-id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An endless text/event-stream; each `data` is one Event */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": components["schemas"]["Event"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            413: components["responses"]["Problem413"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    createTenantEventTicket: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ticket */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventTicket"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            413: components["responses"]["Problem413"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    getTodos: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The list */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TodoList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headTodos: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The list */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TodoList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listMemory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The files */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryListing"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headMemory: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The files */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryListing"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listMcpServers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The servers */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpServerList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headMcpServers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The servers */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["McpServerList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listSkills: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The skills */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headSkills: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The skills */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SkillList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                /** @description Replay events with a greater seq */
                after?: number;
            };
            header?: {
                /** @description The last seq received */
                "last-event-id"?: string;
            };
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An endless text/event-stream; each `data` is one Event */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": components["schemas"]["Event"];
                };
            };
            /** @description The session is closed and every event after the given one was delivered: nothing will come (an EventSource stops) */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    createEventTicket: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ticket */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventTicket"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listOutputs: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The outputs with digest and provenance */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutputList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headOutputs: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The outputs with digest and provenance */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OutputList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    getOutput: {
        parameters: {
            query?: never;
            header?: {
                range?: string;
                "if-none-match"?: string;
                "if-range"?: string;
            };
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Output id */
                output_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole output */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Repr-Digest": components["headers"]["ReprDigest"];
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    "Cache-Control"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description The requested byte range */
            206: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Repr-Digest": components["headers"]["ReprDigest"];
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    "Cache-Control"?: string;
                    "Content-Range": components["headers"]["ContentRange"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Not modified (the ETag matched) */
            304: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Repr-Digest": components["headers"]["ReprDigest"];
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    "Cache-Control"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            410: components["responses"]["Problem410"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            416: components["responses"]["Problem416"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headOutput: {
        parameters: {
            query?: never;
            header?: {
                range?: string;
                "if-none-match"?: string;
                "if-range"?: string;
            };
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Output id */
                output_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The whole output */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Repr-Digest": components["headers"]["ReprDigest"];
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    "Cache-Control"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description The requested byte range */
            206: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Repr-Digest": components["headers"]["ReprDigest"];
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    "Cache-Control"?: string;
                    "Content-Range": components["headers"]["ContentRange"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Not modified (the ETag matched) */
            304: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Repr-Digest": components["headers"]["ReprDigest"];
                    /** @description `bytes` */
                    "Accept-Ranges"?: string;
                    "Cache-Control"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            410: components["responses"]["Problem410"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            416: components["responses"]["Problem416"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    listCheckpoints: {
        parameters: {
            query?: {
                limit?: number;
                /** @description The `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of checkpoints */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckpointList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headCheckpoints: {
        parameters: {
            query?: {
                limit?: number;
                /** @description The `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of checkpoints */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckpointList"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    getCheckpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Checkpoint id */
                checkpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The checkpoint */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckpointDetail"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headCheckpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Checkpoint id */
                checkpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The checkpoint */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckpointDetail"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    getChanges: {
        parameters: {
            query?: {
                /** @description A checkpoint id or a turn id */
                from?: string;
                /** @description A checkpoint id, a turn id, or `current` */
                to?: string;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The changed paths (JSON), or with `Accept: text/x-diff` the unified diff (binary files named, not dumped) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeList"];
                    "text/x-diff": string;
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headChanges: {
        parameters: {
            query?: {
                /** @description A checkpoint id or a turn id */
                from?: string;
                /** @description A checkpoint id, a turn id, or `current` */
                to?: string;
            };
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The changed paths (JSON), or with `Accept: text/x-diff` the unified diff (binary files named, not dumped) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeList"];
                    "text/x-diff": string;
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    getTurnChanges: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Turn id */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The changed paths (JSON), or with `Accept: text/x-diff` the unified diff (binary files named, not dumped) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeList"];
                    "text/x-diff": string;
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headTurnChanges: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
                /** @description Turn id */
                turn_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The changed paths (JSON), or with `Accept: text/x-diff` the unified diff (binary files named, not dumped) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangeList"];
                    "text/x-diff": string;
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    rewindSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RewindRequest"];
            };
        };
        responses: {
            /** @description What the rewind did (or, with dry_run, would do) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RewindResult"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    compactSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CompactRequest"];
            };
        };
        responses: {
            /** @description What the compaction did */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompactResult"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    forkSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ForkRequest"];
            };
        };
        responses: {
            /** @description The new session, with `forked_from` */
            201: {
                headers: {
                    Location: components["headers"]["Location"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    getSigningKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningKeySet"];
                };
            };
            403: components["responses"]["Problem403"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
        };
    };
    headSigningKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SigningKeySet"];
                };
            };
            403: components["responses"]["Problem403"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
        };
    };
    verifySession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The check */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChainVerification"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    headVerifySession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Session id */
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The check */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChainVerification"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            404: components["responses"]["Problem404"];
            413: components["responses"]["Problem413"];
            414: components["responses"]["Problem414"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    rotateEncryptionKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Rotated */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    "X-RateLimit-Limit": components["headers"]["RateLimitLimit"];
                    "X-RateLimit-Remaining": components["headers"]["RateLimitRemaining"];
                    "X-RateLimit-Reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyRotation"];
                };
            };
            400: components["responses"]["Problem400"];
            401: components["responses"]["Problem401"];
            403: components["responses"]["Problem403"];
            409: components["responses"]["Problem409"];
            413: components["responses"]["Problem413"];
            415: components["responses"]["Problem415"];
            421: components["responses"]["Problem421"];
            429: components["responses"]["Problem429"];
            431: components["responses"]["Problem431"];
            500: components["responses"]["Problem500"];
            503: components["responses"]["Problem503"];
            507: components["responses"]["Problem507"];
        };
    };
    mcpStream: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An SSE stream of JSON-RPC messages */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["Problem400_2"];
            401: components["responses"]["Problem401_2"];
            403: components["responses"]["Problem403_2"];
            404: components["responses"]["Problem404_2"];
            /** @description Not allowed */
            405: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        jsonrpc: "2.0";
                        error: {
                            code: number;
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                        id: string | number | null;
                    };
                };
            };
            /** @description The Accept header does not name application/json and text/event-stream (POST) or text/event-stream (GET) */
            406: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        jsonrpc: "2.0";
                        error: {
                            code: number;
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                        id: string | number | null;
                    };
                };
            };
            409: components["responses"]["Problem409_2"];
            413: components["responses"]["Problem413_2"];
            415: components["responses"]["Problem415_2"];
            421: components["responses"]["Problem421_2"];
            429: components["responses"]["Problem429_2"];
            431: components["responses"]["Problem431_2"];
            500: components["responses"]["Problem500_2"];
            503: components["responses"]["Problem503_2"];
            507: components["responses"]["Problem507_2"];
        };
    };
    mcpPost: {
        parameters: {
            query?: {
                /** @description With initialize: attach the MCP session to this existing session instead of making one */
                session?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": ({
                    /** @enum {string} */
                    jsonrpc: "2.0";
                } & {
                    [key: string]: unknown;
                }) | unknown[];
            };
        };
        responses: {
            /** @description The answer: one JSON-RPC message, or an SSE stream of messages ending with the answer */
            200: {
                headers: {
                    /** @description The MCP session id (on the answer to initialize) */
                    "Mcp-Session-Id"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        jsonrpc: "2.0";
                    } & {
                        [key: string]: unknown;
                    };
                    "text/event-stream": string;
                };
            };
            /** @description A notification or response was accepted (no body) */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Problem400_2"];
            401: components["responses"]["Problem401_2"];
            403: components["responses"]["Problem403_2"];
            404: components["responses"]["Problem404_2"];
            /** @description The Accept header does not name application/json and text/event-stream (POST) or text/event-stream (GET) */
            406: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        jsonrpc: "2.0";
                        error: {
                            code: number;
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                        id: string | number | null;
                    };
                };
            };
            409: components["responses"]["Problem409_2"];
            413: components["responses"]["Problem413_2"];
            415: components["responses"]["Problem415_2"];
            421: components["responses"]["Problem421_2"];
            429: components["responses"]["Problem429_2"];
            431: components["responses"]["Problem431_2"];
            500: components["responses"]["Problem500_2"];
            503: components["responses"]["Problem503_2"];
            507: components["responses"]["Problem507_2"];
        };
    };
    mcpDelete: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ended (no body) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["Problem400_2"];
            401: components["responses"]["Problem401_2"];
            403: components["responses"]["Problem403_2"];
            404: components["responses"]["Problem404_2"];
            /** @description The Accept header does not name application/json and text/event-stream (POST) or text/event-stream (GET) */
            406: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        jsonrpc: "2.0";
                        error: {
                            code: number;
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                        id: string | number | null;
                    };
                };
            };
            409: components["responses"]["Problem409_2"];
            413: components["responses"]["Problem413_2"];
            415: components["responses"]["Problem415_2"];
            421: components["responses"]["Problem421_2"];
            429: components["responses"]["Problem429_2"];
            431: components["responses"]["Problem431_2"];
            500: components["responses"]["Problem500_2"];
            503: components["responses"]["Problem503_2"];
            507: components["responses"]["Problem507_2"];
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics, in the Prometheus text exposition format 0.0.4 */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4": string;
                };
            };
            401: components["responses"]["Problem401_2"];
            403: components["responses"]["Problem403_2"];
            429: components["responses"]["Problem429_2"];
            431: components["responses"]["Problem431_2"];
            500: components["responses"]["Problem500_2"];
        };
    };
    headMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics, in the Prometheus text exposition format 0.0.4 */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4": string;
                };
            };
            401: components["responses"]["Problem401_2"];
            403: components["responses"]["Problem403_2"];
            429: components["responses"]["Problem429_2"];
            431: components["responses"]["Problem431_2"];
            500: components["responses"]["Problem500_2"];
        };
    };
    getConsoleSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The login */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsoleSession"];
                };
            };
            401: components["responses"]["Problem401_2"];
            403: components["responses"]["Problem403_2"];
            421: components["responses"]["Problem421_2"];
            431: components["responses"]["Problem431_2"];
            500: components["responses"]["Problem500_2"];
        };
    };
    createConsoleSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConsoleLogin"];
            };
        };
        responses: {
            /** @description Logged in; the cookie is set */
            201: {
                headers: {
                    /** @description norma_console=<login token>; Path=/; HttpOnly; SameSite=Strict; Max-Age=… */
                    "set-cookie"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsoleSession"];
                };
            };
            /** @description Invalid request: the detail and `errors` say what to fix */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            401: components["responses"]["Problem401_2"];
            403: components["responses"]["Problem403_2"];
            /** @description Conflicts with the resource's current state (or a request with the same Idempotency-Key is still in progress) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["Problem413_2"];
            415: components["responses"]["Problem415_2"];
            421: components["responses"]["Problem421_2"];
            429: components["responses"]["Problem429_2"];
            431: components["responses"]["Problem431_2"];
            500: components["responses"]["Problem500_2"];
        };
    };
    deleteConsoleSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Logged out; the cookie is cleared */
            204: {
                headers: {
                    /** @description norma_console=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict */
                    "set-cookie"?: string;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            403: components["responses"]["Problem403_2"];
            421: components["responses"]["Problem421_2"];
            431: components["responses"]["Problem431_2"];
            500: components["responses"]["Problem500_2"];
        };
    };
    headConsoleSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The login */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsoleSession"];
                };
            };
            401: components["responses"]["Problem401_2"];
            403: components["responses"]["Problem403_2"];
            421: components["responses"]["Problem421_2"];
            431: components["responses"]["Problem431_2"];
            500: components["responses"]["Problem500_2"];
        };
    };
}
