// The preview a permission request carries (API.md "An inbox for people"), made when the call
// asks: the tool's own or the permission stages' (inputs.ts), its diff cut to PREVIEW_MAX_CHARS
// with the whole of it kept as an output of the call (`of: "preview"`) a person can download.
import { PREVIEW_MAX_CHARS } from '../contract/preview.js';
import type { CoreTool, PreviewResult } from '../tools/tool.js';
import type { CallInputs } from './inputs.js';
import { CappedTextCollector } from './output-cap.js';
import type { PipelineEnv, ToolCall } from './types.js';

export async function previewFor(call: ToolCall, tool: CoreTool, input: unknown, reason: string, inputs: CallInputs, env: PipelineEnv): Promise<PreviewResult | null> {
  const made = await inputs.preview(input, reason);
  if (!made || made.preview.kind !== 'diff' || made.preview.diff === undefined || made.preview.diff.length <= PREVIEW_MAX_CHARS) return made;
  const spill = env.spill;
  const collector = new CappedTextCollector(
    PREVIEW_MAX_CHARS,
    0,
    spill ? (blockIndex) => spill({ toolUseId: call.id, tool: tool.name, blockIndex, preview: true }) : null,
  );
  try {
    await collector.write(made.preview.diff);
    const done = await collector.finish();
    // Longer in UTF-16 units than the limit, yet not in characters: whole after all.
    if (!done.truncation) return made;
    return {
      ...made,
      preview: { ...made.preview, diff: done.text, truncated: true, ...(done.truncation.output_id ? { output_id: done.truncation.output_id, output_sha256: done.truncation.sha256 } : {}) },
    };
  } catch {
    await collector.abort().catch(() => undefined);
    return { ...made, preview: { ...made.preview, diff: made.preview.diff.slice(0, PREVIEW_MAX_CHARS), truncated: true } };
  }
}
