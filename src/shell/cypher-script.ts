/**
 * The statements of a Cypher script (`npm run cypher -- -f FILE` or `-e TEXT`), each with where it begins, so that
 * the shell can say which statement an answer or an error belongs to.
 */

export interface ScriptStatement {
  /** 1 for the script's first statement. */
  number: number;
  /** The line of the script the statement's text begins on, 1 for the first. */
  line: number;
  /** As sent: from its first line that is not blank or a comment, without the semicolon that ends it. */
  text: string;
}

const isBlankOrComment = (line: string) => line.trim() === '' || line.trim().startsWith('//');

/**
 * A statement ends where a line ends with ';' (a ';' within a line does not end it). Blank and comment lines before a
 * statement are left out, and so is a statement that is nothing but comments.
 */
export function statementsOf(script: string): ScriptStatement[] {
  const statements: ScriptStatement[] = [];
  let lines: string[] = [];
  let start = 0;
  const end = () => {
    const text = lines.join('\n').trimEnd().replace(/;$/, '').trimEnd();
    if (text.trim() && !lines.every(isBlankOrComment)) statements.push({ number: statements.length + 1, line: start, text });
    lines = [];
  };
  script.split(/\r?\n/).forEach((line, i) => {
    if (lines.length === 0 && isBlankOrComment(line)) return;
    if (lines.length === 0) start = i + 1;
    lines.push(line);
    if (/;\s*$/.test(line)) end();
  });
  if (lines.length > 0) end();
  return statements;
}

const labelChars = 60;

/** `-- statement 2 (line 5): MATCH (n) …`: the statement's first line, cut to a line's width. */
export function labelOf(statement: ScriptStatement): string {
  const [first, ...more] = statement.text.trim().split('\n');
  const cut = first.length > labelChars || more.length > 0;
  return `-- statement ${statement.number} (line ${statement.line}): ${first.slice(0, labelChars).trimEnd()}${cut ? ' …' : ''}`;
}
