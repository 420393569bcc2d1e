// Skill: loads one of the session's skills. The manual lists each available skill by name and
// description only; the instructions (SKILL.md's body) are read when the skill is invoked, so a
// session pays for the skills it uses, not for every skill it could use. The result carries a
// `use_skill` effect: the session makes the skill's folder readable to the file tools and unlocks
// the tools its `allowed-tools` names.
import { Type, type Static } from '@sinclair/typebox';
import { defineTool, ToolRefusal, textOutput, type CoreTool, type ToolFactory } from '../../tools/tool.js';
import { readSkillBody, SKILL_NAME, type SkillInfo } from './loader.js';
import { SKILL_DESCRIPTION } from './skill.description.js';

const SkillInput = Type.Object(
  {
    skill: Type.String({ pattern: SKILL_NAME.source, description: 'The name of the skill, as listed' }),
    args: Type.Optional(Type.String({ maxLength: 10_000, description: 'Optional arguments for the skill: what it should work on' })),
  },
  { additionalProperties: false },
);
type SkillInput = Static<typeof SkillInput>;

/** What the Skill tool runs on: the skills this session may use, as they are now. */
export interface SkillDeps {
  skills(): readonly SkillInfo[];
}

const NO_SKILLS = '(no skills are available in this session)';

/** The manual as the model sees it: the base text and the session's skills, names and descriptions only. */
export function skillManual(skills: readonly SkillInfo[]): string {
  // A description is one list item: line breaks inside it would start lines of their own.
  const list = skills.length === 0 ? NO_SKILLS : skills.map((s) => `- ${s.name}: ${s.description.replace(/\s+/g, ' ').trim()}`).join('\n');
  return `${SKILL_DESCRIPTION}\n\nAvailable skills:\n${list}`;
}

const definition = defineTool<SkillInput, SkillDeps>({
  name: 'Skill',
  description: SKILL_DESCRIPTION,
  inputSchema: SkillInput,
  // Reading a skill changes no file; the session state it changes goes through the result's effect,
  // which is applied in order, so two calls are not run side by side.
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  requiresApproval: () => false,
  permissionSubject: (input) => ({ kind: 'label', label: input.skill }),
  async call(input, _ctx, deps) {
    const available = deps.skills();
    const skill = available.find((s) => s.name === input.skill);
    if (!skill) {
      const names = available.map((s) => s.name);
      throw new ToolRefusal(
        names.length === 0
          ? `there is no skill "${input.skill}": no skills are available in this session`
          : `there is no skill "${input.skill}"; the available skills are: ${names.join(', ')}`,
      );
    }
    const read = await readSkillBody(skill);
    if (!read.ok) throw new ToolRefusal(`skill "${skill.name}" cannot be loaded: ${read.message}`);
    const { info, body } = read;
    const lines = [`Skill "${info.name}" loaded (${info.source} skill). Its folder ${info.dir} is now readable with Read, Glob and Grep.`];
    if (input.args) lines.push(`Arguments: ${input.args}`);
    return {
      ...textOutput(`${lines.join('\n')}\n\n${body}`),
      effects: [{ kind: 'use_skill', skill: info.name, unlock: [...info.allowedTools] }],
    };
  },
});

export const skillTool: ToolFactory<SkillDeps> = {
  ...definition,
  bind(deps: SkillDeps): CoreTool {
    // The list is the one of bind time: the manual is fixed for the session's tool list, while a
    // call looks the skill up in the current list.
    const manual = skillManual(deps.skills());
    return { ...definition.bind(deps), description: manual, prompt: manual };
  },
};
