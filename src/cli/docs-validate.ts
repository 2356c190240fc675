import { readFileSync } from 'node:fs'
import type { Issue } from '../docs-config/model'
import { validateDocsConfig } from '../docs-config/validation/validate'
import { IncludeError } from '../docs-format/includes'
import { readDocsConfigFile } from './docs-config-file'

/** Where the command reads and writes; tests pass their own. */
export interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
  stdin: () => Promise<string>
}

const USAGE = 'usage: trellis docs validate <file|-> [--strict] [--json]'

const PROCESS_IO: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  // Reading file descriptor 0 directly: iterating process.stdin came back empty under Bun 1.3 once the
  // server's lifecycle module (which imports node:process) was loaded by the same entry.
  stdin: async () => readFileSync(0, 'utf8'),
}

/**
 * `trellis docs validate <file|-> [--strict] [--json]`: checks a docs.json and prints compiler-style lines,
 * `docs.json:12:5: error colors.primary: … (did you mean "…"?)`, warnings the same way, then a summary.
 * With `--json` it prints the validation result object instead. `$ref` includes are resolved relative to the
 * file first, as Mintlify's CLI does.
 *
 * @returns the exit code: 0 valid, 1 invalid, 2 bad invocation (unknown flag, no file, unreadable file).
 */
export async function runDocsValidate(args: string[], io: CliIo = PROCESS_IO): Promise<number> {
  let strict = false
  let json = false
  const files: string[] = []
  for (const arg of args) {
    if (arg === '--strict') strict = true
    else if (arg === '--json') json = true
    else if (arg === '--help' || arg === '-h') {
      io.stdout(`${USAGE}\n`)
      return 0
    } else if (arg.startsWith('-') && arg !== '-') return badInvocation(io, `unknown option ${arg}`)
    else files.push(arg)
  }
  if (files.length !== 1) {
    return badInvocation(io, files.length === 0 ? 'missing the file to validate' : 'validate one file at a time')
  }
  const file = files[0]
  let text: string
  let resolved = false
  try {
    if (file === '-') text = await io.stdin()
    else ({ text, resolved } = await readDocsConfigFile(file))
  } catch (error) {
    if (error instanceof IncludeError) {
      io.stdout(`${error.message}\n${file}: invalid, an include could not be resolved\n`)
      return 1
    }
    return badInvocation(
      io,
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
  const result = validateDocsConfig(text, { strict })
  if (json) {
    io.stdout(`${JSON.stringify(result, null, 2)}\n`)
    return result.valid ? 0 : 1
  }
  const name = file === '-' ? '<stdin>' : file
  const lines = [
    ...result.errors.map((issue) => ({ issue, severity: 'error' })),
    ...result.warnings.map((issue) => ({ issue, severity: 'warning' })),
  ].sort((a, b) => a.issue.line - b.issue.line || a.issue.column - b.issue.column)
  // Lines and columns then refer to the document with its includes in place, which is what was checked.
  let output = resolved ? `${name}: $ref includes resolved; positions refer to the resolved document\n` : ''
  for (const { issue, severity } of lines) output += `${formatIssue(name, severity, issue)}\n`
  output += `${name}: ${result.valid ? 'valid' : 'invalid'}, ${count(result.errors.length, 'error')}, ${count(result.warnings.length, 'warning')}\n`
  io.stdout(output)
  return result.valid ? 0 : 1
}

/** One compiler-style line: `file:line:column: severity message (did you mean "x"?)`. */
function formatIssue(file: string, severity: string, issue: Issue): string {
  const hint = issue.suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(issue.suggestion)}?)`
  return `${file}:${issue.line}:${issue.column}: ${severity} ${issue.message}${hint}`
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

function badInvocation(io: CliIo, reason: string): number {
  io.stderr(`trellis docs validate: ${reason}\n${USAGE}\n`)
  return 2
}
