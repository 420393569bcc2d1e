// A small glob → RegExp translation for name patterns (`*`, `?`, `[abc]`, `{a,b}`).
// `*` never crosses a path separator; `**` does.
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let inClass = false;
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (inClass) {
      if (c === ']') inClass = false;
      re += c === '\\' ? '\\\\' : c;
      continue;
    }
    switch (c) {
      case '*':
        if (glob[i + 1] === '*') {
          re += '.*';
          i++;
        } else re += '[^/]*';
        break;
      case '?':
        re += '[^/]';
        break;
      case '[':
        inClass = true;
        re += glob[i + 1] === '!' ? (i++, '[^') : '[';
        break;
      case '{':
        braceDepth++;
        re += '(?:';
        break;
      case '}':
        if (braceDepth > 0) {
          braceDepth--;
          re += ')';
        } else re += '\\}';
        break;
      case ',':
        re += braceDepth > 0 ? '|' : ',';
        break;
      default:
        re += /[.+^$()|\\]/.test(c) ? `\\${c}` : c;
    }
  }
  if (inClass || braceDepth > 0) return new RegExp(`^${escapeAll(glob)}$`);
  return new RegExp(`^${re}$`);
}

function escapeAll(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
