// Every program the read-only judgement and the danger list know, by name.
import { AWK_SPEC } from './awk.js';
import { TEXT_PROGRAMS } from './coreutils.js';
import { FIND } from './find.js';
import { GIT } from './git.js';
import { INTERPRETERS, interpreterFor } from './interpreters.js';
import { SED_SPEC } from './sed.js';
import type { ProgramSpec } from './spec.js';
import { TAR_SPEC } from './tar.js';

const PROGRAMS: Record<string, ProgramSpec> = {
  ...TEXT_PROGRAMS,
  ...INTERPRETERS,
  find: FIND,
  git: GIT,
  sed: SED_SPEC,
  gsed: SED_SPEC,
  awk: AWK_SPEC,
  gawk: AWK_SPEC,
  mawk: AWK_SPEC,
  nawk: AWK_SPEC,
  tar: TAR_SPEC,
  gtar: TAR_SPEC,
};

export function programSpec(name: string): ProgramSpec | undefined {
  return Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name] : interpreterFor(name);
}
