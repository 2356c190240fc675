import { ConfigError } from './env'

/**
 * One problem of a configuration file, where it is: `file:line:column: error <message> (did you mean "x"?)`, the
 * form `trellis docs validate` prints and editors turn into links. Line and column are 1-based.
 */
export type ConfigFinding = {
  file: string
  line: number
  column: number
  /** The setting, as written in messages: `providers.deepseek.baseUrl`, `models.chat[0].provider`. */
  path: string
  message: string
  suggestion?: string
}

/** The compiler-style line of a finding. */
export function formatFinding(finding: ConfigFinding): string {
  const hint = finding.suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(finding.suggestion)}?)`
  return `${finding.file}:${finding.line}:${finding.column}: error ${finding.message}${hint}`
}

/** A configuration file that does not validate: every finding, in the order of the file. */
export class ConfigFileInvalid extends ConfigError {
  override name = 'ConfigFileInvalid'
  constructor(
    readonly file: string,
    readonly findings: ConfigFinding[],
  ) {
    super(findings.map(formatFinding).join('\n'))
  }
}

/** `providers.deepseek.baseUrl`, `models.chat[0]`, `models["gpt-4.1"]`: a path as people read it. */
export function settingPath(path: readonly (string | number)[]): string {
  let text = ''
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`
    else if (/^[A-Za-z_][\w-]*$/.test(segment)) text += text === '' ? segment : `.${segment}`
    else text += `[${JSON.stringify(segment)}]`
  }
  return text
}
