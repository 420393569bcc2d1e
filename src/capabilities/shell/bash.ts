// Bash: runs a command with /bin/bash inside the process sandbox (SPEC §9.6). Output (stdout
// and stderr, interleaved as they arrive) streams as tool.progress events and through the cap,
// so a runaway command never grows memory; the whole process tree dies on timeout or cancel.
import { StringDecoder } from 'node:string_decoder';
import { Type, type Static } from '@sinclair/typebox';
import { LRUCache } from 'lru-cache';
import { analyzeCommand, type CommandAnalysis } from '../../permission/shell.js';
import { defineTool, textOutput, type ToolFactory, type ToolOutput } from '../../tools/tool.js';
import type { ShellDeps } from './deps.js';
import { bashDescription } from './bash.description.js';

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;

const BashInput = Type.Object(
  {
    command: Type.String({ minLength: 1, maxLength: 100_000, description: 'The command line, run by /bin/bash -c' }),
    timeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: BASH_MAX_TIMEOUT_MS,
        description: `Milliseconds before the command and everything it started are killed (default ${BASH_DEFAULT_TIMEOUT_MS})`,
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 1000, description: 'What the command does, in a few words' })),
    run_in_background: Type.Optional(
      Type.Boolean({ description: 'Start the command as a background task and return its id at once (see TaskOutput, Monitor, TaskStop)' }),
    ),
  },
  { additionalProperties: false },
);
type BashInput = Static<typeof BashInput>;

export interface BashToolOptions {
  /**
   * Creates the cache of command analyses this tool keeps: the metadata judgements, the
   * permission check and the rule subject all need the analysis of the same command (default:
   * the 256 most recently used).
   */
  analysisCache?: () => LRUCache<string, CommandAnalysis>;
}

export function createBashTool(opts: BashToolOptions = {}): ToolFactory<ShellDeps> {
  const analyses = opts.analysisCache?.() ?? new LRUCache<string, CommandAnalysis>({ max: 256 });
  const analysisOf = (command: string): CommandAnalysis => {
    let a = analyses.get(command);
    if (!a) {
      a = analyzeCommand(command);
      analyses.set(command, a);
    }
    return a;
  };
  const readOnlyLine = (command: string): boolean => {
    const a = analysisOf(command);
    return a.ok && a.readOnly;
  };

  return defineTool<BashInput, ShellDeps>({
    name: 'Bash',
    description: bashDescription({ defaultTimeoutMs: BASH_DEFAULT_TIMEOUT_MS, maxTimeoutMs: BASH_MAX_TIMEOUT_MS }),
    inputSchema: BashInput,
    // Read-only only when the analyser accounts for every command and all are on its read-only
    // list with no writing redirect; anything else is mutating, exclusive and approval-required.
    isReadOnly: (input) => readOnlyLine(input.command),
    isConcurrencySafe: (input) => readOnlyLine(input.command),
    requiresApproval: (input) => !readOnlyLine(input.command),
    // Bash(...) rules are matched against each simple command the analyser found.
    permissionSubject: (input) => ({ kind: 'command', analysis: analysisOf(input.command) }),
    async checkPermissions(input) {
      const a = analysisOf(input.command);
      // A command the analyser cannot account for is asked about (or denied where nobody can be
      // asked); an ask beats every allow rule, so it is never auto-allowed.
      if (!a.ok) return { behavior: 'ask', reason: `the command could not be fully analysed (${a.reason})` };
      return { behavior: 'passthrough' };
    },
    async call(input, ctx, deps): Promise<ToolOutput> {
      const argv = ['/bin/bash', '-c', input.command];
      const MAX_REFUSALS_SAID = 5;
      if (input.run_in_background) {
        const task = await deps.tasks.start(deps.sandbox, argv, input.command, { turnId: ctx.turnId, toolUseId: ctx.toolUseId });
        return textOutput(`Started background task ${task.id}. Read its output with TaskOutput, wait for a line with Monitor, stop it with TaskStop.`);
      }
      const timeoutMs = input.timeout ?? BASH_DEFAULT_TIMEOUT_MS;
      // Connections the session's network scope refused, said after the status (at most a few).
      const refused: string[] = [];
      let refusedMore = 0;
      const origin = {
        toolUseId: ctx.toolUseId,
        turnId: ctx.turnId,
        kind: 'call' as const,
        refused: (why: string) => {
          if (refused.length < MAX_REFUSALS_SAID) refused.includes(why) || refused.push(why);
          else refusedMore++;
        },
      };
      const child = await deps.sandbox.spawn({ argv, origin });
      const output = ctx.openOutput();

      // One chain keeps chunks in arrival order; a stream pauses while its chunk is written,
      // so a fast producer waits for the disk instead of filling memory.
      let chain = Promise.resolve();
      const pipe = (stream: NodeJS.ReadableStream) => {
        const decoder = new StringDecoder('utf8');
        const push = (text: string) => {
          if (text === '') return;
          ctx.progress(text);
          stream.pause();
          chain = chain.then(() => output.write(text)).finally(() => stream.resume());
        };
        stream.on('data', (d: Buffer) => push(decoder.write(d)));
        stream.on('end', () => push(decoder.end()));
      };
      pipe(child.stdout);
      pipe(child.stderr);

      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill();
      }, timeoutMs);
      const onAbort = () => child.kill();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      const exit = await child.exited;
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      await chain;

      if (ctx.signal.aborted) {
        await output.abort();
        throw new Error('cancelled');
      }
      const { blocks, truncation } = await output.finish();
      const status = exit.error !== undefined
        ? `The command could not be started: ${exit.error}`
        : exit.limit
          ? `Stopped: ${exit.limit}.`
          : timedOut
            ? `Killed after the ${timeoutMs} ms timeout (the whole process tree was stopped).`
            : exit.signal
              ? `Killed by ${exit.signal}.`
              : `Exit code ${exit.code}.`;
      const failed = exit.error !== undefined || exit.limit !== undefined || timedOut || exit.signal !== null || exit.code !== 0;
      const network = refused.length === 0 ? '' : `\nNetwork: refused ${refused.length + refusedMore} connection(s): ${refused.join('; ')}${refusedMore > 0 ? `; and ${refusedMore} more` : ''}.`;
      const content = blocks[0]!.text === '' ? [{ type: 'text' as const, text: status + network }] : [...blocks, { type: 'text' as const, text: status + network }];
      return {
        content,
        ...(failed ? { isError: true } : {}),
        ...(truncation && blocks[0]!.text !== '' ? { streamed: [{ blockIndex: 0, truncation }] } : {}),
      };
    },
  });
}

/** The Bash tool as the catalog installs it. */

