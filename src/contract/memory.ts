// A session's memory store (the Memory tool), its instruction files and its skills (API.md
// "Memory and instructions", "Skills").
import { Type, type Static } from '@sinclair/typebox';
import { ref, StringEnum } from './common.js';

export const MemoryFileSchema = Type.Object(
  {
    path: Type.String({ description: 'As the Memory tool names it: `/memories/…`' }),
    bytes: Type.Integer({ minimum: 0 }),
    sha256: Type.String(),
    modified_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'MemoryFile' },
);

export const MemoryListingSchema = Type.Object(
  {
    store: Type.String({ description: 'The named store (`memory_store`), or `session` for the session\'s private one' }),
    items: Type.Array(ref(MemoryFileSchema)),
  },
  { $id: 'MemoryListing' },
);
export type MemoryListing = Static<typeof MemoryListingSchema>;

export const InstructionFileSchema = Type.Object(
  {
    file: Type.String({ description: 'The file name at the workspace root (`AGENTS.md`, `NORMA.md`, `CLAUDE.md`)' }),
    bytes: Type.Integer({ minimum: 0 }),
    sha256: Type.String({ description: 'SHA-256 (hex) of the text that joined the system prompt' }),
  },
  { $id: 'InstructionFile' },
);
export type InstructionFile = Static<typeof InstructionFileSchema>;

export const SkillSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    allowed_tools: Type.Array(Type.String(), { description: 'Deferred tools invoking the skill unlocks' }),
    source: StringEnum(['operator', 'workspace'], { description: '`operator`: NORMA_SKILLS_DIR; `workspace`: `.norma/skills/`' }),
    sha256: Type.String({ description: 'SHA-256 of its SKILL.md when the session was made' }),
    used: Type.Boolean({ description: 'Invoked in this session (its folder is readable by the file tools)' }),
  },
  { $id: 'Skill' },
);
export type Skill = Static<typeof SkillSchema>;

export const SkillListSchema = Type.Object({ items: Type.Array(ref(SkillSchema)) }, { $id: 'SkillList' });
