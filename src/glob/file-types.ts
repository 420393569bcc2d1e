// ripgrep's file types (`--type`) for Grep's built-in search, used when ripgrep is not
// installed: each type is a list of name globs. The table is ripgrep 14's default one for the
// types the fallback knows; ripgrep itself knows many more, and with ripgrep present its own
// table applies.
import { compileNameGlob } from './match.js';

export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ['*.[chH]', '*.[chH].in', '*.cats'],
  cmake: ['*.cmake', 'CMakeLists.txt'],
  config: ['*.cfg', '*.conf', '*.config', '*.ini'],
  cpp: ['*.[ChH]', '*.cc', '*.[ch]pp', '*.[ch]xx', '*.hh', '*.inl', '*.[ChH].in', '*.cc.in', '*.[ch]pp.in', '*.[ch]xx.in', '*.hh.in'],
  cs: ['*.cs'],
  csharp: ['*.cs'],
  css: ['*.css', '*.scss'],
  csv: ['*.csv'],
  dart: ['*.dart'],
  docker: ['*Dockerfile*'],
  elixir: ['*.ex', '*.eex', '*.exs'],
  go: ['*.go'],
  h: ['*.h', '*.hh', '*.hpp'],
  html: ['*.htm', '*.html', '*.ejs'],
  java: ['*.java', '*.jsp', '*.jspx', '*.properties'],
  js: ['*.js', '*.jsx', '*.vue', '*.cjs', '*.mjs'],
  json: ['*.json', 'composer.lock'],
  jsonl: ['*.jsonl'],
  kotlin: ['*.kt', '*.kts'],
  less: ['*.less'],
  lock: ['*.lock', 'package-lock.json'],
  log: ['*.log'],
  lua: ['*.lua'],
  make: ['[Gg][Nn][Uu]makefile', '[Mm]akefile', '[Gg][Nn][Uu]makefile.am', '[Mm]akefile.am', '[Gg][Nn][Uu]makefile.in', '[Mm]akefile.in', '*.mk', '*.mak'],
  markdown: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn'],
  md: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn'],
  php: ['*.php', '*.php3', '*.php4', '*.php5', '*.php7', '*.php8', '*.pht', '*.phtml'],
  protobuf: ['*.proto'],
  py: ['*.py'],
  ruby: ['config.ru', 'Gemfile', '.irbrc', 'Rakefile', '*.gemspec', '*.rb', '*.rbw'],
  rust: ['*.rs'],
  sass: ['*.sass', '*.scss'],
  scala: ['*.scala', '*.sbt'],
  sh: ['*.bash', '*.csh', '*.ksh', '*.sh', '*.tcsh', '*.zsh', '.bashrc', 'bashrc', '*.bashrc', '.bash_profile', 'bash_profile', '.profile', 'profile', '.zshrc', 'zshrc', '.zprofile', 'zprofile', '.zshenv', 'zshenv'],
  sql: ['*.sql', '*.psql'],
  svg: ['*.svg'],
  swift: ['*.swift'],
  tf: ['*.tf', '*.auto.tfvars', 'terraform.tfvars', '*.tf.json'],
  toml: ['*.toml', 'Cargo.lock'],
  ts: ['*.ts', '*.tsx', '*.cts', '*.mts'],
  txt: ['*.txt'],
  xml: ['*.xml', '*.xml.dist', '*.dtd', '*.xsl', '*.xslt', '*.xsd', '*.xjb', '*.rng', '*.sch', '*.xhtml'],
  yaml: ['*.yaml', '*.yml'],
  zig: ['*.zig'],
};

/** A file-name test for a known type; null for a type this table does not know. */
export function fileTypeMatcher(type: string): ((name: string) => boolean) | null {
  const globs = Object.hasOwn(FILE_TYPES, type) ? FILE_TYPES[type] : undefined;
  if (!globs) return null;
  const tests = globs.map(compileNameGlob);
  return (name) => tests.some((re) => re.test(name));
}
