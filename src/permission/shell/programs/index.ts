// Every program the read-only judgement and the danger list know, by name.
import { TEXT_PROGRAMS } from './coreutils.js';
import { FIND } from './find.js';
import { GIT } from './git.js';
import type { ProgramSpec } from './spec.js';

export const PROGRAMS: Record<string, ProgramSpec> = {
  ...TEXT_PROGRAMS,
  find: FIND,
  git: GIT,
};
