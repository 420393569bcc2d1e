// Spill files: the full text of a capped tool_result block, with its provenance.
import { Type, type Static } from '@sinclair/typebox';
import { Id, ref, StringEnum } from './common.js';
import { Timestamp } from './fields.js';

export const OutputSchema = Type.Object(
  {
    id: Id('Server-made output id (`out_…`)'),
    session_id: Type.String(),
    turn_id: Type.String(),
    tool_use_id: Type.String(),
    tool: Type.String(),
    block_index: Type.Integer({ minimum: 0, description: 'The capped block of the tool_result this output completes' }),
    of: Type.Optional(Type.Literal('preview', { description: 'The whole diff of the call\'s permission request preview (not a block of its result)' })),
    bytes: Type.Integer({ minimum: 0, description: 'Size of the full output in UTF-8 bytes' }),
    chars: Type.Integer({ minimum: 0, description: 'Length of the full output in Unicode code points' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (hex) of the full output, computed while it was written' }),
    status: StringEnum(['available', 'expired'], {
      description: '`expired`: removed by retention (age or the per-session byte budget); the record stays as evidence',
    }),
    created_at: Timestamp('When the output was written'),
    expired_at: Type.Optional(Timestamp('When retention removed the file')),
  },
  { $id: 'Output', description: 'A spill file: the full text of a capped tool_result block, with its provenance' },
);
export type Output = Static<typeof OutputSchema>;
export const OutputListSchema = Type.Array(ref(OutputSchema), { $id: 'OutputList' });
